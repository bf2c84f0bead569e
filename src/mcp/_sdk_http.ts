/**
 * The MCP SDK's HTTP client side, re-exported in one place as `_sdk.ts` does for the rest:
 * the Streamable HTTP and HTTP+SSE transports and the OAuth client (`auth()` and the provider
 * interface). Import this lazily: it loads with the SDK.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
export { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
export {
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
export type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type {
  FetchLike,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
