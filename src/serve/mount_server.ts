/**
 * A server of mounted endpoints only (`replio mcp --http`): the listener and access checks of
 * `replio serve` (token, Origin, Host, body limits, `100 Continue`) without its API.
 * @module
 */
import { answerGuarded } from "./answer_guarded.ts";
import { type HttpListener, listenHttp } from "./http_listener.ts";
import { mountRoutes } from "./mount_routes.ts";
import type { HttpMount } from "./serve_workspace.ts";

/** Options of {@link startMountServer}. */
export interface MountServerOptions {
  hostname: string;
  /** 0 picks any free port. */
  port: number;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  mounts: readonly HttpMount[];
  /** Receives errors answered with 500, for the operator's log. */
  onInternalError?: (error: unknown) => void;
}

/**
 * Starts listening on `options.hostname:options.port`; rejects with `Deno.errors.AddrInUse`
 * when the port is taken.
 */
export async function startMountServer(options: MountServerOptions): Promise<MountServer> {
  const routes = mountRoutes(options.mounts);
  let serverUrl = "";
  const listener = await listenHttp({
    hostname: options.hostname,
    port: options.port,
    handler: (request) =>
      answerGuarded(request, {
        routes,
        token: options.token,
        serverUrl,
        onInternalError: options.onInternalError,
      }),
    onError: (error) => options.onInternalError?.(error),
  });
  const { hostname, port } = listener;
  serverUrl = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  return new MountServer(serverUrl, listener, options.mounts);
}

/** A listening server of mounts; {@link MountServer.shutdown} stops it. */
export class MountServer implements AsyncDisposable {
  /** Settles when {@link shutdown} has finished: every mount closed, every response ended. */
  readonly finished: Promise<void>;
  readonly #finish = Promise.withResolvers<void>();
  #stopped: Promise<void> | null = null;

  /** `url` is `http://HOST:PORT` with the port actually bound. */
  constructor(
    readonly url: string,
    private readonly listener: HttpListener,
    private readonly mounts: readonly HttpMount[],
  ) {
    this.finished = this.#finish.promise;
  }

  /** Stops accepting, closes every mount (ending its work) and waits until all has ended. */
  shutdown(): Promise<void> {
    this.#stopped ??= (async () => {
      // A mount's streams end only when it closes, and the listener waits for them.
      await Promise.all([this.listener.shutdown(), ...this.mounts.map((mount) => mount.close())]);
      this.#finish.resolve();
    })();
    return this.#stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }
}
