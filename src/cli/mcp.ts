/**
 * `replio mcp`: serve the tools to an MCP client (another agent), headless: over stdio, or with
 * `--http` over Streamable HTTP at `/mcp` behind the guards of `replio serve`.
 * @module
 */
import { createMcpHttpEndpoint, type McpHttpOptions, serveMcp } from "../mcp/mod.ts";
import { type HttpMount, MAX_BODY_BYTES, startMountServer } from "../serve/mod.ts";
import { VERSION } from "../version.ts";
import { EXIT, UsageError } from "./errors.ts";
import { parsePort, readServeToken } from "./serve_access.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of `replio mcp` and `replio mcp serve`. */
export interface McpCommandOptions {
  yes?: boolean;
  no?: boolean;
  mode?: string;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
  /** `--http`: serve Streamable HTTP on `--host` and `--port` instead of stdio. */
  http?: boolean;
  host?: string;
  port?: string;
}

/** Where `replio mcp --http` listens unless told: the address and port `replio serve` uses. */
const HTTP_DEFAULTS = { host: "127.0.0.1", port: "8787" };

/** Serves until the client closes stdin (or, with `--http`, until SIGINT or SIGTERM); exit 0. */
export async function runMcpServer(options: McpCommandOptions): Promise<number> {
  if (!options.http && (options.host !== undefined || options.port !== undefined)) {
    throw new UsageError(
      `Cannot use ${options.host !== undefined ? "--host" : "--port"} without --http: ` +
        `replio mcp speaks stdio unless told: add --http to serve over HTTP`,
    );
  }
  const host = options.host ?? HTTP_DEFAULTS.host;
  const port = parsePort(options.port ?? HTTP_DEFAULTS.port);
  // Checked before the workspace opens, so a refused start never starts MCP servers.
  const token = options.http ? readServeToken(host) : undefined;
  // initialize is answered at once: configured servers that are still starting announce
  // their tools with tools/list_changed when they are up.
  const ws = await openWorkspace({ ...options, headless: options, mcpWait: 0 });
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  if (options.http) {
    await serveHttp({ host, port, token }, {
      ...ws,
      version: VERSION,
      maxBodyBytes: MAX_BODY_BYTES,
    });
    return EXIT.ok;
  }
  if (Deno.stdin.isTerminal()) {
    // Someone typed `replio mcp` by hand: without this it just sits there.
    await Deno.stderr.write(
      new TextEncoder().encode(
        "replio mcp speaks MCP on stdin and stdout: start it from an MCP client, " +
          "or pass --http to serve over HTTP (docs/mcp.md)\n",
      ),
    );
  }
  await serveMcp({ ...ws, version: VERSION });
  return EXIT.ok;
}

/**
 * Listens until SIGINT or SIGTERM, then ends every session (running calls cancelled) and
 * returns once they have ended. The first stdout line is `listening http://HOST:PORT/mcp`.
 */
async function serveHttp(
  listen: { host: string; port: number; token: string | undefined },
  options: McpHttpOptions,
): Promise<void> {
  let server;
  try {
    server = await startMountServer({
      hostname: listen.host,
      port: listen.port,
      token: listen.token,
      mounts: [await mcpMount(options)],
      onInternalError: (error) => {
        const text = error instanceof Error ? error.stack ?? error.message : String(error);
        Deno.stderr.writeSync(new TextEncoder().encode(`replio mcp: ${text}\n`));
      },
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new UsageError(
      `Cannot listen on ${listen.host}:${listen.port}: the port is in use: ` +
        `pass another --port, or --port 0 for any free one`,
    );
  }
  const stopOnSignals = handleSignals(["SIGINT", "SIGTERM"], () => void server.shutdown());
  try {
    // Only once the listeners are in place: a client may stop the server as soon as it reads this.
    await Deno.stdout.write(new TextEncoder().encode(`listening ${server.url}/mcp\n`));
    await server.finished;
  } finally {
    stopOnSignals[Symbol.dispose]();
  }
}

/** The MCP server over Streamable HTTP at `/mcp`, for `replio mcp --http` and `replio serve`. */
export async function mcpMount(options: McpHttpOptions): Promise<HttpMount> {
  const endpoint = await createMcpHttpEndpoint(options);
  return {
    path: "/mcp",
    answer: (request) => endpoint.answer(request),
    close: () => endpoint.close(),
  };
}
