/**
 * MCP both ways: replio's tools served to an MCP client (`replio mcp`), and configured MCP
 * servers' tools registered as replio tools. Everything here loads the SDK on first use, so
 * importing this module costs nothing when no MCP server is configured.
 * @module
 */
import { denoDenial } from "../tools/mod.ts";
import type { ConnectOptions, McpServerConfig, McpServers } from "./client.ts";
import type { McpServeOptions } from "./server.ts";

export type {
  ConnectOptions,
  McpServerConfig,
  McpServers,
  McpServerState,
  McpServerStatus,
} from "./client.ts";
export type { McpServeOptions } from "./server.ts";

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
    // Spawning without the grant would fail on each server; say once which flag serves it.
    const denial = denoDenial({ permission: "mcp", deno: { run: [server.command] } }, "/");
    if (denial) {
      options.warn(
        `Cannot start MCP server "${name}": replio was started without ${denial.denoFlags}: ` +
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

/** Serves the registry's visible tools over MCP on stdin and stdout until stdin closes. */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const { serveToolsOverStdio } = await import("./server.ts");
  await serveToolsOverStdio(options);
}

/** The MCP SDK (client, server, transports), loaded on first use: its import is heavy. */
export function loadMcpSdk(): Promise<typeof import("./_sdk.ts")> {
  return import("./_sdk.ts");
}
