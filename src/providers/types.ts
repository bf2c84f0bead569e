/**
 * The provider contract: chat messages in the OpenAI format, and the events a streaming
 * `chat()` yields. Types only.
 * @module
 */
import type { ToolImage, ToolSchema } from "../tools/types.ts";

/** One function call requested by the model; `arguments` is the raw JSON text. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A chat message as OpenAI-compatible servers take it. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: ToolCall[];
    /** Reasoning text, kept for the session; not every server accepts it back. */
    reasoning?: string;
  }
  | {
    role: "tool";
    tool_call_id: string;
    name: string;
    content: string;
    /**
     * Images the tool handed the model with its result (an MCP server's). A tool message is
     * text only, so they are sent as a user message after the turn's tool results.
     */
    images?: ToolImage[];
  };

/** Token counts as reported by the server. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** What the request cost, when the provider reports it (OpenRouter's `usage.cost`, in USD). */
  cost?: number;
}

/** Why a stream ended. */
export type FinishReason = "stop" | "tool_calls" | "length" | "cancelled";

/** What `Provider.chat()` yields. `error` is the last event of a failed stream. */
export type ProviderEvent =
  | { type: "thinking"; delta: string }
  | { type: "text"; delta: string }
  | { type: "tool_calls"; calls: ToolCall[] }
  | { type: "usage"; usage: Usage }
  /** A failed attempt that will be retried after `delay_ms`; `reason` says what failed. */
  | { type: "retry"; reason: string; delay_ms: number; attempt: number; attempts: number }
  | { type: "done"; reason: FinishReason }
  | { type: "error"; code: string; message: string };

/** One streamed chat request. */
export interface ChatRequest {
  messages: ChatMessage[];
  tools: ToolSchema[];
  signal: AbortSignal;
}

/** A model endpoint. */
export interface Provider {
  /** The model name requests use. */
  readonly model: string;
  /** Streams one assistant turn. Never throws: failures end the stream with an `error` event. */
  chat(request: ChatRequest): AsyncIterable<ProviderEvent>;
  /** One bounded non-streaming completion (compaction, query refinement, ask → lead). */
  complete(messages: ChatMessage[], signal: AbortSignal): Promise<string>;
  /** The model ids the endpoint offers (`GET /models`); throws with what failed and the fix. */
  listModels?(): Promise<string[]>;
}
