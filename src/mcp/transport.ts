/**
 * How replio reaches one MCP server: the one place that turns an `mcp_servers` entry into a
 * transport. Every server runs on stdio as a child process today, inside the OS sandbox when
 * `sandbox.mcp` is on; another transport plugs in here, behind the same {@link ServerTransport}.
 * @module
 */
import { resolve } from "../fs/path.ts";
import { bwrapArgs, childEnv } from "../plugins/api.ts";
import { StdioProcessTransport } from "./stdio_transport.ts";
import type { ConnectOptions, McpServerConfig, ServerTransport } from "./types.ts";

/** A transport not yet started, and how the server runs: the sandbox's label or `none`. */
export interface PlannedTransport {
  transport: ServerTransport;
  isolation: string;
}

/** The transport for one server; throws when the configured sandbox cannot be used. */
export async function planTransport(
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<PlannedTransport> {
  const cwd = resolve(options.worktree, config.cwd ?? ".");
  const sandbox = options.sandbox;
  if (sandbox?.problem) throw new Error(sandbox.problem);
  const boxed = sandbox?.kind === "bwrap";
  const transport = new StdioProcessTransport({
    command: boxed ? "bwrap" : config.command,
    args: boxed
      ? [...await bwrapArgs(sandbox, cwd), config.command, ...config.args ?? []]
      : config.args ?? [],
    // What commands get (replio's environment less its secrets), so a server that npx or deno
    // fetches sees the proxy and CA settings (HTTPS_PROXY, SSL_CERT_FILE) it needs; the
    // server's own configured env wins.
    env: childEnv(options.config, config.env ?? {}),
    cwd,
  });
  return { transport, isolation: boxed ? sandbox.label : "none" };
}
