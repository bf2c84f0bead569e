/**
 * MCP servers as tools: each configured server is started in the background, its tools are
 * listed and registered as `mcp__<server>__<tool>` under the `mcp` permission as soon as it is
 * up, so they pass the same registry and policy as every other tool. A slow server delays
 * nothing; one that fails to start is reported and left out; one that exits later is restarted
 * on its next call, with backoff (server_connection.ts); every server goes when replio exits.
 * @module
 */
import type { ToolArgs, ToolContext } from "../tools/types.ts";
import type { ToolRegistry } from "../tools/mod.ts";
import { mcpToolName, mcpToolSpec } from "./mcp_tool.ts";
import { ServerConnection } from "./server_connection.ts";
import { StdioProcessTransport, stopAllNow } from "./stdio_transport.ts";
import type { ConnectOptions, McpServerConfig, McpServerStatus } from "./types.ts";

export { mcpToolName } from "./mcp_tool.ts";
export type { ConnectOptions, McpServerConfig, McpServerState, McpServerStatus } from "./types.ts";

/**
 * The configured servers and their connections. Construction spawns every server at once;
 * {@link attach} registers the tools of each server when it comes up.
 */
export class McpServers {
  readonly #servers: ServerConnection[];
  readonly #taken = new Set<string>();
  readonly #options: ConnectOptions;
  readonly #listeners = new Set<() => void>();
  #registry: ToolRegistry | null = null;

  constructor(servers: Readonly<Record<string, McpServerConfig>>, options: ConnectOptions) {
    this.#options = options;
    this.#servers = Object.entries(servers).map(([name, config]) =>
      new ServerConnection(name, config, options)
    );
    // Deno does not end child processes at exit: without this the servers would outlive
    // replio. `unload` is the one event Deno.exit fires, and it allows no await.
    globalThis.addEventListener("unload", () => this.stopNow());
    for (const server of this.#servers) {
      void server.connect().then((ok) => ok && this.#register(server));
    }
  }

  /** Registers the tools of every server that is up, and of each later one when it comes up. */
  attach(registry: ToolRegistry): void {
    this.#registry = registry;
    for (const server of this.#servers) if (server.state === "ready") this.#register(server);
  }

  /** Calls `listener` whenever tools were added (`replio mcp` sends `tools/list_changed`). */
  onToolsChanged(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** Resolves when every server is up or failed, or after `ms`, whichever comes first. */
  async settle(ms = Infinity): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const all = Promise.all(this.#servers.map((s) => s.started));
    if (ms === Infinity) return void await all;
    try {
      await Promise.race([all, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves once the attached registry knows `name` or every server has started or failed:
   * `replio tool` waits for the server of its tool, not for a hanging other one.
   */
  async untilRegistered(name: string): Promise<void> {
    const known = () => this.#registry?.lookup(name) !== undefined;
    if (known()) return;
    const registered = Promise.withResolvers<void>();
    const listener = () => known() && registered.resolve();
    this.#listeners.add(listener);
    try {
      await Promise.race([registered.promise, this.settle()]);
    } finally {
      this.#listeners.delete(listener);
    }
  }

  /** Stops every server's process group at once, blocking for at most the kill grace. */
  stopNow(): void {
    stopAllNow(
      this.#servers.map((s) => s.transport).filter((t) => t instanceof StdioProcessTransport),
    );
  }

  /** Every server with its state, as `replio tools` lists it. */
  statuses(): McpServerStatus[] {
    return this.#servers.map((s) => s.status());
  }

  #register(server: ServerConnection): void {
    const registry = this.#registry;
    if (!registry || server.isRegistered) return;
    server.isRegistered = true;
    for (const tool of server.tools) {
      const name = mcpToolName(server.name, tool.name);
      if (this.#taken.has(name) || registry.lookup(name)) {
        this.#options.warn(
          `Cannot register tool "${tool.name}" of MCP server "${server.name}": its name ` +
            `"${name}" is taken by another tool: rename one of the servers in mcp_servers`,
        );
        continue;
      }
      this.#taken.add(name);
      registry.register(
        mcpToolSpec(tool, { name: server.name, isolation: () => server.isolation }),
        (args: ToolArgs, ctx: ToolContext) => server.call(tool, args, ctx),
      );
      server.registered++;
    }
    for (const listener of this.#listeners) listener();
  }
}
