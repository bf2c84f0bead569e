/**
 * The MCP SDK's schemas and types for the requests a server sends its client (elicitation,
 * roots, sampling), re-exported in one place as `_sdk.ts` does for the rest. Import this lazily:
 * it loads with the SDK.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  type ClientCapabilities,
  type CreateMessageRequest,
  CreateMessageRequestSchema,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
  type ListRootsResult,
  type PrimitiveSchemaDefinition,
  type SamplingMessage,
} from "@modelcontextprotocol/sdk/types.js";
