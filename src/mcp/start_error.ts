/**
 * The failures of a server's start whose message already says what to do, so they are shown as
 * they are rather than followed by the generic advice; and the one callers branch on, a remote
 * server that wants a login replio does not have.
 * @module
 */

/** A server could not start, for a reason its message explains and ends with the fix. */
export class ServerStartError extends Error {
  override name = "ServerStartError";
}

/** A remote server wants an OAuth login that replio does not have or could not renew. */
export class McpLoginRequired extends ServerStartError {
  override name = "McpLoginRequired";

  /**
   * @param server the name in `mcp_servers`
   * @param reason what is wrong with the login, e.g. `it needs a login`
   */
  constructor(readonly server: string, readonly reason: string) {
    super(`${reason}: run \`${loginCommand(server)}\``);
  }
}

/**
 * The command that logs in to `server`, its name quoted for a shell when it needs it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(loginCommand("linear"), "replio mcp login linear");
 * assert.equal(loginCommand("my server"), "replio mcp login 'my server'");
 * ```
 */
export function loginCommand(server: string): string {
  const quoted = /^[A-Za-z0-9_.@%+=:,/-]+$/.test(server)
    ? server
    : `'${server.replaceAll("'", `'\\''`)}'`;
  return `replio mcp login ${quoted}`;
}
