/**
 * The HTTP API of `replio serve` (docs/serve.md): the listener, access, routing and shutdown.
 * The endpoints live in route modules gathered by routes.ts. Every run is headless, as
 * `replio run`: ask-gated calls get the server's `--yes`/`--no` answer and `ask` has no one to
 * answer.
 * @module
 */
import { listenGuarded } from "./answer_guarded.ts";
import type { HttpListener } from "./http_listener.ts";
import { serveRoutes } from "./routes.ts";
import { createServeContext, type ServeContext } from "./serve_context.ts";
import type { ServeWorkspace } from "./serve_workspace.ts";

export type { ServeWorkspace } from "./serve_workspace.ts";

/** Options of {@link startServer}. */
export interface ServeOptions {
  hostname: string;
  /** 0 picks any free port. */
  port: number;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  version: string;
  workspace: ServeWorkspace;
  /** Receives errors answered with 500, for the operator's log. */
  onInternalError?: (error: unknown) => void;
}

/**
 * Starts listening on `options.hostname:options.port`; rejects with `Deno.errors.AddrInUse`
 * when the port is taken.
 * @example
 * ```ts ignore
 * await using server = await startServer({ hostname: "127.0.0.1", port: 0, version, workspace });
 * console.log(server.url); // http://127.0.0.1:41234
 * ```
 */
export async function startServer(options: ServeOptions): Promise<ReplioServer> {
  const closing = new AbortController();
  const ctx = createServeContext({
    workspace: options.workspace,
    version: options.version,
    closing: closing.signal,
    onInternalError: options.onInternalError,
  });
  const { listener, url } = await listenGuarded({
    hostname: options.hostname,
    port: options.port,
    routes: serveRoutes(ctx),
    token: options.token,
    onInternalError: options.onInternalError,
  });
  return new ReplioServer({ url, listener, ctx, closing });
}

/** A listening API server; made by {@link startServer}, stopped by {@link ReplioServer.shutdown}. */
export class ReplioServer implements AsyncDisposable {
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  /** Settles when {@link shutdown} has finished: every turn saved, every response ended. */
  readonly finished: Promise<void>;
  readonly #finish = Promise.withResolvers<void>();
  readonly #listener: HttpListener;
  readonly #ctx: ServeContext;
  /** Aborted on shutdown: running turns and tool calls are cancelled through it. */
  readonly #closing: AbortController;
  #stopped: Promise<void> | null = null;

  constructor(
    parts: { url: string; listener: HttpListener; ctx: ServeContext; closing: AbortController },
  ) {
    this.url = parts.url;
    this.#listener = parts.listener;
    this.#ctx = parts.ctx;
    this.#closing = parts.closing;
    this.finished = this.#finish.promise;
  }

  /**
   * Stops accepting, cancels running turns and tool calls, and resolves once every turn has
   * saved its session (its `turn_end` written) and every response has ended.
   */
  shutdown(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#closing.abort();
      // A mount's streams (MCP's) end only when it closes, and the listener waits for them.
      const mounts = this.#ctx.workspace.mounts ?? [];
      await Promise.all([this.#listener.shutdown(), ...mounts.map((mount) => mount.close())]);
      await this.#ctx.turns.settled();
      this.#finish.resolve();
    })();
    return this.#stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }
}
