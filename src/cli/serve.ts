/**
 * `replio serve`: the local HTTP API (docs/serve.md). Prints `listening http://HOST:PORT` as
 * its first stdout line; SIGINT or SIGTERM stops accepting, cancels running turns, waits until
 * their sessions are saved, and exits 0 (a server asked to stop did what it was asked).
 * @module
 */
import { createProvider } from "../providers/mod.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { noticeOnStderr } from "./notice.ts";
import { isLoopbackHost, startServer } from "../serve/mod.ts";
import { VERSION } from "../version.ts";
import { EXIT, UsageError } from "./errors.ts";
import { createRootAgent } from "./start_agent.ts";
import { toolListing } from "./tools.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";

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

/** The variable holding the bearer token; required to bind anything but loopback. */
const TOKEN_ENV = "REPLIO_SERVE_TOKEN";

/** Serves until SIGINT or SIGTERM; exit 0, or 2 for a bad flag, a missing token or a busy port. */
export async function runServer(options: ServeCommandOptions): Promise<number> {
  const port = parsePort(options.port);
  const token = readToken();
  if (token === undefined && !isLoopbackHost(options.host)) {
    throw new UsageError(
      `Cannot serve on "${options.host}": it is reachable from other machines and ` +
        `${TOKEN_ENV} is not set, so anyone there could run tools here: ` +
        `set ${TOKEN_ENV} to a long random secret, or use --host 127.0.0.1`,
    );
  }
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
  await Deno.stdout.write(new TextEncoder().encode(`listening ${server.url}\n`));
  const stop = () => void server.shutdown();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const name of signals) Deno.addSignalListener(name, stop);
  try {
    await server.finished;
  } finally {
    for (const name of signals) Deno.removeSignalListener(name, stop);
  }
  return EXIT.ok;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new UsageError(
      `Cannot use --port "${text}": expected a port from 0 to 65535: pass 8787, or 0 for any free port`,
    );
  }
  return port;
}

/**
 * The token, when set and readable; an empty value counts as unset. A token with whitespace is
 * refused: a blank one would guard nothing, and no `Authorization: Bearer` header can carry a
 * space, so no client could ever send it.
 */
function readToken(): string | undefined {
  const permission = Deno.permissions.querySync({ name: "env", variable: TOKEN_ENV });
  if (permission.state !== "granted") return undefined;
  const token = Deno.env.get(TOKEN_ENV);
  if (!token) return undefined;
  if (/\s/.test(token)) {
    throw new UsageError(
      `Cannot use ${TOKEN_ENV}: it ${
        token.trim() ? "contains whitespace" : "is only whitespace"
      }, which no bearer token can carry: set it to a long random secret such as ` +
        "the output of `openssl rand -hex 32`",
    );
  }
  return token;
}
