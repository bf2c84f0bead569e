/**
 * A server of mounted endpoints only (`replio mcp --http`): the listener and access checks of
 * `replio serve` (token, Origin, Host, body limits, `100 Continue`) without its API.
 * @module
 */
import { listenGuarded } from "./answer_guarded.ts";
import type { HttpListener } from "./http_listener.ts";
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
  const { listener, url } = await listenGuarded({
    hostname: options.hostname,
    port: options.port,
    routes: mountRoutes(options.mounts),
    token: options.token,
    onInternalError: options.onInternalError,
  });
  return new MountServer(url, listener, options.mounts);
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
