/**
 * MCP both ways: replio's tools served to an MCP client (`replio mcp`), and configured MCP
 * servers' tools registered as replio tools. Everything here loads the SDK on first use, so
 * importing this module costs nothing when no MCP server is configured.
 * @module
 */
import { denoDenial } from "../tools/mod.ts";
import type { ConnectOptions, McpServerConfig, McpServers } from "./client.ts";
import type { McpServeOptions } from "./server.ts";
import type { McpLoginOptions, McpLoginResult } from "./oauth_login.ts";
import type { McpHttpEndpoint, McpHttpOptions } from "./http_server.ts";

export type {
  ConnectOptions,
  McpServerConfig,
  McpServers,
  McpServerState,
  McpServerStatus,
} from "./client.ts";
export type { McpServeOptions } from "./server.ts";
export type { McpHttpEndpoint, McpHttpOptions } from "./http_server.ts";
export type { McpLoginOptions, McpLoginResult } from "./oauth_login.ts";

/**
 * Starts the configured MCP servers in the background, or none when none is configured or
 * replio may not run programs; a server that fails to start is reported through
 * `options.warn`. Attach a registry to the result to receive each server's tools as it comes up.
 */
export async function startMcpServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  options: ConnectOptions,
): Promise<McpServers | null> {
  const runnable: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(servers)) {
    // Spawning or connecting without the grant would fail on each server; say once which flag
    // serves it.
    const missing = server.url === undefined
      ? denoDenial({ permission: "mcp", deno: { run: [server.command!] } }, "/")?.denoFlags
      : missingNetFlag(server.url);
    if (missing) {
      options.warn(
        `Cannot start MCP server "${name}": replio was started without ${missing}: ` +
          `restart it with that flag to use its tools`,
      );
    } else {
      runnable[name] = server;
    }
  }
  if (Object.keys(runnable).length === 0) return null;
  const { McpServers } = await import("./client.ts");
  return new McpServers(runnable, options);
}

/** `--allow-net=<host:port>` when replio may not connect to a remote server's URL, else null. */
function missingNetFlag(url: string): string | null {
  const { hostname, port, protocol } = new URL(url);
  const host = `${hostname}:${port || (protocol === "https:" ? 443 : 80)}`;
  return Deno.permissions.querySync({ name: "net", host }).state === "granted"
    ? null
    : `--allow-net=${host}`;
}

/** Serves the registry's visible tools over MCP on stdin and stdout until stdin closes. */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { serveToolsOverStdio } = await import("./server.ts");
  await serveToolsOverStdio(options);
}

/** The Streamable HTTP endpoint of `replio mcp --http` and `replio serve` (http_server.ts). */
export async function createMcpHttpEndpoint(options: McpHttpOptions): Promise<McpHttpEndpoint> {
  const { createMcpHttpEndpoint } = await import("./http_server.ts");
  return createMcpHttpEndpoint(options);
}

/** Logs in to a remote server of `mcp_servers` with OAuth and stores its tokens (oauth_login.ts). */
export async function loginToMcpServer(options: McpLoginOptions): Promise<McpLoginResult> {
  const { loginToMcpServer } = await import("./oauth_login.ts");
  return await loginToMcpServer(options);
}

/** Forgets every stored login of a server name; returns the URLs they were for. */
export async function forgetMcpLogins(server: string): Promise<string[]> {
  const { removeLogins } = await import("./oauth_store.ts");
  return await removeLogins(server);
}

/** The MCP SDK (client, server, transports), loaded on first use: its import is heavy. */
export function loadMcpSdk(): Promise<typeof import("./_sdk.ts")> {
  return import("./_sdk.ts");
}
