/**
 * Model servers that fail the way real ones do, on 127.0.0.1, each counting what reached it: a
 * port where nothing listens (refused), a server that answers every request with a fixed
 * response (an HTML login page, a 404), and one that accepts connections and never answers.
 * The scripted model itself is `mock_model.ts`.
 * @module
 */

/**
 * A port on 127.0.0.1 where nothing listens: bound, then closed, so a connection is refused.
 * Another process could take it meanwhile; on a test machine that is rare enough to ignore.
 */
export function refusingPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/** A server that answers every request with `answer`; dispose to stop it. */
export interface AnsweringServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** `METHOD /path` of every request, in arrival order. */
  requests: string[];
}

/** Starts a server on 127.0.0.1 that answers every request with `answer(request)`. */
export function startAnsweringServer(answer: (request: Request) => Response): AnsweringServer {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return answer(request);
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A login page as a captive portal or proxy sends it, with status 200. */
export const LOGIN_PAGE =
  "<!DOCTYPE html><html><head><title>Sign in - Corp Proxy</title></head><body>Sign in</body></html>";

/** A TCP listener that accepts connections and never sends a byte; dispose to close them all. */
export interface SilentServer extends AsyncDisposable {
  baseUrl: string;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Resolves once `count` connections have been accepted. */
  accepted(count: number): Promise<void>;
}

/** Starts a {@link SilentServer} on 127.0.0.1. */
export function startSilentServer(): SilentServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open: Deno.Conn[] = [];
  let waiters: { count: number; resolve: () => void }[] = [];
  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        open.push(conn);
        const ready = waiters.filter((w) => w.count <= open.length);
        waiters = waiters.filter((w) => w.count > open.length);
        for (const waiter of ready) waiter.resolve();
      }
    } catch (error) {
      // Closing the listener ends the loop with BadResource: that is the dispose doing its job.
      if (!(error instanceof Deno.errors.BadResource)) throw error;
    }
  })();
  return {
    baseUrl: `http://127.0.0.1:${listener.addr.port}/v1`,
    get connections() {
      return open.length;
    },
    accepted(count) {
      if (open.length >= count) return Promise.resolve();
      const { promise, resolve } = Promise.withResolvers<void>();
      waiters.push({ count, resolve });
      return promise;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const conn of open) {
        try {
          conn.close();
        } catch (error) {
          // The client may have closed it first.
          if (!(error instanceof Deno.errors.BadResource)) throw error;
        }
      }
    },
  };
}
