/**
 * The params of a `tools/call` request, checked by hand: the SDK would reject malformed ones with
 * a dump of its schema errors, and a client's developer should read what is wrong and the fix.
 * @module
 */
import { ErrorCode } from "./_sdk.ts";

/** The parameters of a `tools/call` request, checked by hand for a message a person can read. */
export interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  progressToken: string | number | undefined;
}

/** The params of a `tools/call`; throws a -32602 {@link ProtocolError} naming what is wrong. */
export function readCallParams(raw: unknown): CallParams {
  const params = (raw ?? {}) as Record<string, unknown>;
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: expected an object with "name" and "arguments"`,
    );
  }
  if (typeof params.name !== "string" || params.name === "") {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: "name" must be the name of a tool, got ${
        JSON.stringify(params.name ?? null)
      }: call tools/list for the names`,
    );
  }
  const args = params.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: "arguments" must be a JSON object, got ${
        JSON.stringify(args)
      }: send the tool's arguments as an object`,
    );
  }
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return {
    name: params.name,
    arguments: args as Record<string, unknown>,
    progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
  };
}

/**
 * A JSON-RPC error the SDK sends as `{code, message}`. Not the SDK's McpError, whose message
 * starts with "MCP error -32602:" and would reach clients that prefix it once more.
 */
export class ProtocolError extends Error {
  override name = "ProtocolError";
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
