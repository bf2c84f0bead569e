/**
 * The HTTP API of `replio serve` (docs/serve.md): the listener, access, routing and shutdown.
 * The endpoints live in route modules gathered by routes.ts. Every run is headless, as
 * `replio run`: ask-gated calls get the server's `--yes`/`--no` answer and `ask` has no one to
 * answer.
 * @module
 */
import { checkAccess } from "./check_access.ts";
import { HttpError } from "./http_error.ts";
import { errorResponse } from "./_respond.ts";
import { findRoute, type Route } from "./router.ts";
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
 * Starts listening on `options.hostname:options.port`; throws `Deno.errors.AddrInUse` when the
 * port is taken.
 * @example
 * ```ts ignore
 * await using server = startServer({ hostname: "127.0.0.1", port: 0, version, workspace });
 * console.log(server.url); // http://127.0.0.1:41234
 * ```
 */
export function startServer(options: ServeOptions): ReplioServer {
  return new ReplioServer(options);
}

/** A listening API server; made by {@link startServer}, stopped by {@link ReplioServer.shutdown}. */
export class ReplioServer implements AsyncDisposable {
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  /** Settles when {@link shutdown} has finished: every turn saved, every response ended. */
  readonly finished: Promise<void>;
  readonly #finish = Promise.withResolvers<void>();
  readonly #options: ServeOptions;
  readonly #ctx: ServeContext;
  readonly #routes: Route[];
  /** Aborted on shutdown: running turns and tool calls are cancelled through it. */
  readonly #closing = new AbortController();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #stopped: Promise<void> | null = null;

  constructor(options: ServeOptions) {
    this.#options = options;
    this.#ctx = createServeContext({
      workspace: options.workspace,
      version: options.version,
      closing: this.#closing.signal,
      onInternalError: options.onInternalError,
    });
    this.#routes = serveRoutes(this.#ctx);
    this.#server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen() {},
      onError: (error) => this.#internalError(error),
    }, (request) => this.#answer(request));
    const { hostname, port } = this.#server.addr;
    this.url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    this.finished = this.#finish.promise;
  }

  /**
   * Stops accepting, cancels running turns and tool calls, and resolves once every turn has
   * saved its session (its `turn_end` written) and every response has ended.
   */
  shutdown(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#closing.abort();
      await this.#server.shutdown();
      await this.#ctx.turns.settled();
      this.#finish.resolve();
    })();
    return this.#stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  async #answer(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      checkAccess(request, url, { token: this.#options.token, serverUrl: this.url });
      const { route, params } = findRoute(this.#routes, request.method, url);
      return await route.run(request, params, url);
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(error);
      return this.#internalError(error);
    }
  }

  #internalError(error: unknown): Response {
    this.#options.onInternalError?.(error);
    return errorResponse(error);
  }
}
