/**
 * Model providers: the contract, the OpenAI-compatible provider, and choosing an endpoint.
 * @module
 */
export type {
  ChatMessage,
  ChatRequest,
  FinishReason,
  Provider,
  ProviderEvent,
  ToolCall,
  Usage,
} from "./types.ts";
export { createOpenAIProvider, type OpenAIProviderOptions } from "./openai.ts";
export { createProvider, OLLAMA_BASE_URL, type ProviderOverrides } from "./select.ts";
export { ProviderError, type ProviderErrorCode } from "./provider_error.ts";
export { retryDelayMs } from "./retry_delay.ts";
