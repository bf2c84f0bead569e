/**
 * `replio serve`: the local HTTP API (docs/serve.md). Prints `listening http://HOST:PORT` as
 * its first stdout line; SIGINT or SIGTERM stops accepting, cancels running turns, waits until
 * their sessions are saved, and exits 0 (a server asked to stop did what it was asked).
 * @module
 */
import { createProvider } from "../providers/mod.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { noticeOnStderr } from "./notice.ts";
import { MAX_BODY_BYTES, startServer } from "../serve/mod.ts";
import { VERSION } from "../version.ts";
import { EXIT, UsageError } from "./errors.ts";
import { mcpMount } from "./mcp.ts";
import { parsePort, readServeToken } from "./serve_access.ts";
import { createRootAgent } from "./start_agent.ts";
import { toolListing } from "./tools.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of `replio serve`. */
export interface ServeCommandOptions {
  host: string;
  port: string;
  yes?: boolean;
  no?: boolean;
  mode?: string;
  path?: string;
  model?: string;
  baseUrl?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/** Serves until SIGINT or SIGTERM; exit 0, or 2 for a bad flag, a missing token or a busy port. */
export async function runServer(options: ServeCommandOptions): Promise<number> {
  const port = parsePort(options.port);
  const token = readServeToken(options.host);
  const ws = await openWorkspace({ ...options, headless: options });
  const provider = await createProvider(ws.config, { notice: noticeOnStderr });
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  let server;
  try {
    server = await startServer({
      hostname: options.host,
      port,
      token,
      version: VERSION,
      workspace: {
        worktree: ws.worktree,
        config: ws.config,
        registry: ws.registry,
        policy: ws.policy,
        provider,
        agentTypes: [...ws.agentTypes.keys()],
        createAgent: async ({ agentType, ...parts }) => {
          const type = agentType === undefined ? undefined : ws.agentTypes.get(agentType);
          // A type that names its own model talks to it, as it does when delegated to.
          const typeProvider = type?.model
            ? await createProvider(ws.config, { model: type.model })
            : provider;
          return createRootAgent(ws, { provider: typeProvider, ...parts, agentType: type });
        },
        listTools: (policy) => toolListing({ ...ws, policy }),
        // The tools over MCP's Streamable HTTP, as `replio mcp --http` serves them (docs/mcp.md).
        mounts: [await mcpMount({ ...ws, version: VERSION, maxBodyBytes: MAX_BODY_BYTES })],
      },
      onInternalError: (error) => {
        const text = isAccessError(error)
          ? describeAccessError(error)
          : error instanceof Error
          ? error.stack ?? error.message
          : String(error);
        Deno.stderr.writeSync(new TextEncoder().encode(`replio serve: ${text}\n`));
      },
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new UsageError(
      `Cannot listen on ${options.host}:${port}: the port is in use: ` +
        `pass another --port, or --port 0 for any free one`,
    );
  }
  const stopOnSignals = handleSignals(["SIGINT", "SIGTERM"], () => void server.shutdown());
  try {
    // Only now: a client that stops the server as soon as it reads this line would otherwise
    // kill it before the listeners are in place, and its MCP servers would outlive it.
    await Deno.stdout.write(new TextEncoder().encode(`listening ${server.url}\n`));
    await server.finished;
  } finally {
    stopOnSignals[Symbol.dispose]();
  }
  return EXIT.ok;
}
