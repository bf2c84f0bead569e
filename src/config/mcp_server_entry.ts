/**
 * One entry of `mcp_servers`: its schema, and the rules a schema says badly (exactly one of
 * `command` and `url`, and only the keys of that kind), checked with a message naming the entry.
 * @module
 */
import { Type } from "../schema/type.ts";

const STRINGS = Type.Array(Type.String());

/**
 * An MCP server: one replio starts over stdio (the command, its arguments, extra env, its
 * folder), or a remote one at a URL (headers, and the variable holding its bearer token: Codex's
 * names for these keys). Exactly one of `command` and `url`: {@link mcpServerProblem}.
 */
export const MCP_SERVER_SCHEMA = Type.Object({
  command: Type.Optional(Type.String({ minLength: 1 })),
  args: Type.Optional(STRINGS),
  env: Type.Optional(Type.Record(Type.String(), Type.String())),
  cwd: Type.Optional(Type.String()),
  url: Type.Optional(Type.String({ pattern: "^https?://" })),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  bearer_token_env_var: Type.Optional(Type.String({ minLength: 1 })),
}, { additionalProperties: false });

/** The keys of an entry that only a stdio server uses, and those only a remote one uses. */
const STDIO_ONLY = ["args", "env", "cwd"] as const;
const URL_ONLY = ["headers", "bearer_token_env_var"] as const;

/**
 * What is wrong with `mcp_servers` beyond its schema (an entry with neither or both of `command`
 * and `url`, or a key its kind does not use), naming the entry; null when nothing is.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(mcpServerProblem({ a: { url: "https://example.com/mcp" } }), null);
 * assert.equal(
 *   mcpServerProblem({ a: {} }),
 *   '"mcp_servers" at "/a" must set "command" (a server replio starts over stdio) or "url" ' +
 *     "(a remote server), got neither: see docs/mcp.md",
 * );
 * ```
 */
export function mcpServerProblem(
  servers: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): string | null {
  for (const [name, entry] of Object.entries(servers)) {
    const at = `"mcp_servers" at "/${name}"`;
    const hasCommand = entry.command !== undefined;
    const hasUrl = entry.url !== undefined;
    if (hasCommand === hasUrl) {
      return `${at} must set "command" (a server replio starts over stdio) or "url" ` +
        `(a remote server), got ${hasUrl ? "both" : "neither"}: see docs/mcp.md`;
    }
    const misplaced = (hasUrl ? STDIO_ONLY : URL_ONLY).find((k) => entry[k] !== undefined);
    if (misplaced) {
      return `${at} sets "${misplaced}", which only a server with "${
        hasUrl ? "command" : "url"
      }" uses: remove it: see docs/mcp.md`;
    }
  }
  return null;
}
