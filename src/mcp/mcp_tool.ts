/**
 * An MCP server's tool as a replio tool: its registry name and its spec (the server's schema,
 * the argument activity lines show, whether it is read-only by the server's annotations). Its
 * results as the model reads them are call_result.ts's.
 * @module
 */
import type { JsonSchema, ReadOnlyEvidence, ToolSpec } from "../tools/types.ts";
import type { McpTool } from "./_sdk.ts";

/** Providers accept function names of at most this many characters. */
const MAX_NAME_CHARS = 64;

/**
 * The registry name of a server's tool: `mcp__<server>__<tool>`, other characters replaced by
 * `_`, cut to the 64 characters providers accept.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(mcpToolName("my.server", "read file"), "mcp__my_server__read_file");
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_NAME_CHARS);
}

/** A server's tool as the registry holds it, under the `mcp` permission key. */
export function mcpToolSpec(
  tool: McpTool,
  server: { name: string; isolation: () => string },
): ToolSpec {
  const parameters = tool.inputSchema as JsonSchema;
  const keyArg = firstRequiredString(parameters);
  return {
    name: mcpToolName(server.name, tool.name),
    description: tool.description || `Tool "${tool.name}" of MCP server "${server.name}"`,
    parameters,
    category: "mcp",
    permission: "mcp",
    // The server process already runs: its tools need nothing more of this process.
    deno: {},
    isolation: server.isolation,
    readOnly: mcpReadOnly(tool),
    ...(keyArg === undefined ? {} : { keyArg }),
  };
}

/**
 * Read-only exactly when the server says so: MCP's `readOnlyHint` defaults to false, and replio
 * cannot see what a server does.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tool = { name: "t", inputSchema: { type: "object" as const } };
 * assert.equal(mcpReadOnly({ ...tool, annotations: { readOnlyHint: true } }).isReadOnly, true);
 * assert.equal(mcpReadOnly(tool).isReadOnly, false);
 * ```
 */
export function mcpReadOnly(tool: McpTool): ReadOnlyEvidence {
  return tool.annotations?.readOnlyHint === true
    ? { isReadOnly: true, reason: "its MCP server marks it readOnlyHint" }
    : { isReadOnly: false, reason: "its MCP server does not mark it readOnlyHint" };
}

/** The argument shown in activity lines: the first required string parameter. */
function firstRequiredString(schema: JsonSchema): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (schema.required ?? []) as string[];
  return required.find((name) => properties[name]?.type === "string");
}
