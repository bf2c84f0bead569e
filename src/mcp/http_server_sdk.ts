/**
 * The MCP SDK's server side of Streamable HTTP, re-exported in one place as `_sdk.ts` does for
 * the rest: the transport on web-standard `Request` and `Response`. Import this lazily: it loads
 * with the SDK.
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
