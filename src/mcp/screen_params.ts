/**
 * The params of the requests `replio mcp` hands to the SDK, checked before it sees them: the SDK
 * answers bad params with -32603 and a dump of its schema errors, where a client's developer
 * needs -32602 and which field is wrong.
 * @module
 */
import {
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  PingRequestSchema,
} from "./_sdk.ts";

/** A refusal of a request's params: the JSON-RPC error to answer it with. */
export interface ParamsRefusal {
  code: number;
  message: string;
}

/** The schemas of the methods the SDK answers for replio (tools/call is checked by replio). */
const SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
} as const;

/** One schema problem as the SDK's validator reports it. */
interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

/**
 * A -32602 refusal when `message` is a request for initialize, ping or tools/list whose params
 * do not fit its schema; null for anything else (other methods are not this check's to judge).
 */
export function screenParams(message: JSONRPCMessage): ParamsRefusal | null {
  if (!("method" in message) || !("id" in message)) return null;
  const schema = SCHEMAS[message.method as keyof typeof SCHEMAS];
  if (!schema) return null;
  const parsed = schema.safeParse(message);
  if (parsed.success) return null;
  const problems = (parsed.error.issues as readonly Issue[]).map((issue) =>
    `"${issue.path.map(String).join(".")}": ${issue.message}`
  );
  return {
    code: ErrorCode.InvalidParams,
    message: `Invalid ${message.method} params: ${problems.join("; ")}: ` +
      `send them as the MCP specification describes ${message.method}`,
  };
}
