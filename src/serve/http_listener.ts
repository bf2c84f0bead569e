/**
 * The HTTP/1.1 listener of `replio serve`: `node:http` carrying fetch-style `Request` →
 * `Response` handlers. Not `Deno.serve`, which answers `Expect: 100-continue` with
 * `100 Continue` before the handler runs, so a client would upload a body the server then
 * refuses (413, 401, 404). Here `100 Continue` goes out only when a handler starts reading the
 * body; a refusal that never reads it is the first and only answer, and closes the connection.
 * @module
 */
import http from "node:http";
import { HttpError } from "./http_error.ts";
import { errorResponse } from "./_respond.ts";

/** Answers one request; it must not throw (the router turns errors into responses). */
export type RequestHandler = (request: Request) => Promise<Response>;

/** Options of {@link listenHttp}. */
export interface ListenOptions {
  hostname: string;
  /** 0 picks any free port. */
  port: number;
  handler: RequestHandler;
  /** Failures no response can carry any more (a body that broke mid-stream), for the log. */
  onError(error: unknown): void;
}

/** A listening server; {@link HttpListener.shutdown} stops it. */
export interface HttpListener {
  /** The address bound (`127.0.0.1`, `::1`, `0.0.0.0`). */
  readonly hostname: string;
  /** The port bound, also when 0 was asked for. */
  readonly port: number;
  /**
   * Stops accepting connections, waits until every response under way has ended (callers end
   * long ones first, as a shutdown cancels running turns), then closes idle connections.
   */
  shutdown(): Promise<void>;
}

/**
 * Listens on `hostname:port`; rejects with `Deno.errors.AddrInUse` when the port is taken.
 * @example
 * ```ts ignore
 * const listener = await listenHttp({ hostname: "127.0.0.1", port: 0, handler, onError });
 * await listener.shutdown();
 * ```
 */
export async function listenHttp(options: ListenOptions): Promise<HttpListener> {
  const server = http.createServer();
  const inFlight = new Set<Promise<void>>();
  /** Where a request without a Host header (HTTP/1.0) was sent: the address bound. */
  let boundHost = "";
  const answer = (req: http.IncomingMessage, res: http.ServerResponse, isWaiting: boolean) => {
    const done = serveOne(req, res, { ...options, isWaiting, boundHost }).catch(
      (error: unknown) => {
        options.onError(error);
        // Never leave the client waiting on an exchange that broke: answer it, or cut it off.
        if (res.headersSent) {
          res.destroy();
        } else {
          res.writeHead(500, { "content-type": "text/plain; charset=utf-8", connection: "close" });
          res.end("Cannot answer: the server failed while answering: see its log\n");
        }
      },
    );
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };
  server.on("request", (req, res) => answer(req, res, false));
  // With this listener node sends no `100 Continue` itself: the body's first read sends it.
  server.on("checkContinue", (req, res) => answer(req, res, true));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: Error & { code?: string }) => {
      reject(
        error.code === "EADDRINUSE" ? new Deno.errors.AddrInUse(error.message) : error,
      );
    });
    server.listen(options.port, options.hostname, () => resolve());
  });
  const bound = server.address();
  if (bound === null || typeof bound === "string") {
    throw new TypeError(`Cannot read the address bound: got ${JSON.stringify(bound)}`);
  }
  boundHost = bound.address.includes(":")
    ? `[${bound.address}]:${bound.port}`
    : `${bound.address}:${bound.port}`;
  let stopped: Promise<void> | null = null;
  return {
    hostname: bound.address,
    port: bound.port,
    shutdown() {
      stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        while (inFlight.size > 0) await Promise.all(inFlight);
        // Keep-alive connections between requests would hold `close` open until they time out.
        server.closeAllConnections();
        await closed;
      })();
      return stopped;
    },
  };
}

/** One exchange: the request handed to the handler as a `Request`, its `Response` written back. */
async function serveOne(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: ExchangeOptions,
): Promise<void> {
  const gone = new AbortController();
  // The client hung up before the response ended: cancel the work done for it.
  res.on("close", () => {
    if (!res.writableFinished) gone.abort();
  });
  let request: Request;
  try {
    request = toRequest(req, res, { ...options, signal: gone.signal });
  } catch (error) {
    // A Host or header value no URL or Headers can hold: there is no request to hand on.
    if (!(error instanceof TypeError)) throw error;
    const refusal = new HttpError(
      400,
      "bad_request",
      `Cannot read the request: ${error.message}: send a valid HTTP/1.1 request`,
    );
    await writeResponse(req, res, errorResponse(refusal), gone.signal);
    return;
  }
  const response = await options.handler(request);
  await writeResponse(req, res, response, gone.signal);
}

/** What one exchange needs besides the request and the response. */
interface ExchangeOptions extends ListenOptions {
  /** The client sent `Expect: 100-continue` and waits before sending the body. */
  isWaiting: boolean;
  /** `HOST:PORT` bound, for a request without a Host header. */
  boundHost: string;
}

function toRequest(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: ExchangeOptions & { signal: AbortSignal },
): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const url = new URL(req.url ?? "/", `http://${req.headers.host ?? options.boundHost}`);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    signal: options.signal,
    ...(hasBody ? { body: bodyStream(req, res, options.isWaiting), duplex: "half" } : {}),
  });
}

/**
 * The request body, read only when the handler reads it: its first read sends `100 Continue`
 * to a client waiting for one. Nothing is read ahead (high-water mark 0), so a handler that
 * refuses the request by its headers never makes the client upload.
 */
function bodyStream(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  isWaiting: boolean,
): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (chunks === null) {
        if (isWaiting) res.writeContinue();
        // Stopping early must not destroy the socket: the refusal still has to be written.
        chunks = req.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]();
      }
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value));
    },
    async cancel() {
      await chunks?.return?.();
    },
  }, { highWaterMark: 0 });
}

/**
 * Writes `response`: an event stream chunk by chunk as it comes (cancelled when the client goes),
 * anything else whole with its length.
 */
async function writeResponse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  response: Response,
  gone: AbortSignal,
): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  // A body the client may still be sending (or, told to wait, never will) cannot be told apart
  // from the next request on this connection: end the connection with this answer.
  if (!req.complete) res.setHeader("connection", "close");
  const isStream = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
  if (response.body === null || !isStream) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    res.setHeader("content-length", bytes.byteLength);
    res.end(bytes);
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  gone.addEventListener("abort", stop, { once: true });
  if (gone.aborted) stop();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      if (!res.write(read.value)) {
        await new Promise<void>((resolve) => {
          res.once("drain", resolve);
          res.once("close", resolve);
        });
      }
    }
  } catch (error) {
    // Ending the chunked body cleanly would pass the half as the whole: cut the connection.
    res.destroy();
    throw error;
  } finally {
    gone.removeEventListener("abort", stop);
  }
  res.end();
}
