/**
 * How replio reaches one MCP server: the one place that turns an `mcp_servers` entry into a
 * transport. A `command` runs on stdio as a child process, inside the OS sandbox when
 * `sandbox.mcp` is on; a `url` is a remote server over HTTP (http_transport.ts), which no
 * sandbox applies to: it runs on another machine, or as a process replio did not start.
 * @module
 */
import { resolve } from "../fs/path.ts";
import { bwrapArgs, childEnv } from "../plugins/api.ts";
import { readGrantedEnv } from "../tools/mod.ts";
import { HttpServerTransport } from "./http_transport.ts";
import { StoredOAuthProvider } from "./oauth_provider.ts";
import { ServerStartError } from "./start_error.ts";
import { StdioProcessTransport } from "./stdio_transport.ts";
import type { ConnectOptions, McpServerConfig, ServerTransport } from "./types.ts";

/** A transport not yet started, and how the server runs: the sandbox's label or `none`. */
export interface PlannedTransport {
  transport: ServerTransport;
  isolation: string;
}

/** The transport for server `name`; throws when the configured sandbox or token is missing. */
export async function planTransport(
  name: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<PlannedTransport> {
  if (config.url !== undefined) {
    return { transport: await planHttpTransport(name, config.url, config), isolation: "none" };
  }
  // Config validation makes every entry without a url one with a command.
  const command = config.command!;
  const cwd = resolve(options.worktree, config.cwd ?? ".");
  const sandbox = options.sandbox;
  if (sandbox?.problem) throw new Error(sandbox.problem);
  const boxed = sandbox?.kind === "bwrap";
  const transport = new StdioProcessTransport({
    command: boxed ? "bwrap" : command,
    args: boxed
      ? [...await bwrapArgs(sandbox, cwd), command, ...config.args ?? []]
      : config.args ?? [],
    // What commands get (replio's environment less its secrets), so a server that npx or deno
    // fetches sees the proxy and CA settings (HTTPS_PROXY, SSL_CERT_FILE) it needs; the
    // server's own configured env wins.
    env: childEnv(options.config, config.env ?? {}),
    cwd,
  });
  return { transport, isolation: boxed ? sandbox.label : "none" };
}

/**
 * A remote server: its headers, plus the bearer token when `bearer_token_env_var` names one;
 * otherwise the OAuth login stored for this name and URL (none stored is fine: a server that
 * wants none never asks).
 */
async function planHttpTransport(
  name: string,
  url: string,
  config: McpServerConfig,
): Promise<HttpServerTransport> {
  const headers: Record<string, string> = { ...config.headers };
  const variable = config.bearer_token_env_var;
  if (variable !== undefined) {
    const token = readGrantedEnv(variable);
    if (!token) {
      throw new ServerStartError(
        `its bearer token variable ${variable} is ${
          token === "" ? "empty" : "not set (or replio may not read it)"
        }: set it before starting replio, or fix mcp_servers.${name}.bearer_token_env_var`,
      );
    }
    headers.Authorization = `Bearer ${token}`;
  }
  return new HttpServerTransport({
    url: new URL(url),
    headers,
    bearerVariable: variable,
    auth: variable === undefined ? await StoredOAuthProvider.load(name, url) : undefined,
  });
}
