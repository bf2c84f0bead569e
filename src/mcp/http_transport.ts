/**
 * A remote MCP server (`mcp_servers` entry with `url`): Streamable HTTP, falling back to the
 * older HTTP+SSE transport when the server answers the first POST with a 4xx other than 401/403,
 * as the MCP spec's backwards-compatibility section and the SDK's example client do. The
 * configured `headers` and the bearer token (from `bearer_token_env_var`) go only to the
 * server's own origin; without a bearer token, replio's stored OAuth login (if any) is used and
 * refreshed. Nothing here writes a header or token anywhere: errors name the variable, not its
 * value, and URLs are shown without their query or user info.
 * @module
 */
import type { JSONRPCMessage, Transport } from "./_sdk.ts";
import {
  type FetchLike,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  StreamableHTTPError,
  type TransportSendOptions,
  UnauthorizedError,
} from "./_sdk_http.ts";
import type { StoredOAuthProvider } from "./oauth_provider.ts";
import { ServerStartError } from "./start_error.ts";
import type { ServerTransport } from "./types.ts";

/** How long a server's error body may be in a message: the first line says what went wrong. */
const BODY_CHARS = 200;

/** What a remote server's transport needs. */
export interface HttpServerOptions {
  url: URL;
  /** Sent with every request to the server's origin: `headers`, and the bearer token. */
  headers: Readonly<Record<string, string>>;
  /** The variable the bearer token came from, to name it when the server refuses the token. */
  bearerVariable?: string | undefined;
  /** The stored OAuth login, used when no bearer token is configured. */
  auth?: StoredOAuthProvider | undefined;
}

/** The transport the server was reached with, once it answered. */
export type HttpTransportKind = "streamable-http" | "sse";

/** One remote server's connection, as the SDK's Client sees a transport. */
export class HttpServerTransport implements ServerTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** Which transport the server answered on; null until the first message went through. */
  kind: HttpTransportKind | null = null;
  readonly #options: HttpServerOptions;
  readonly #fetch: FetchLike;
  #inner: Transport | null = null;
  #protocolVersion: string | undefined;
  /** How the connection ended, for messages; null while it lasts. */
  #ended: string | null = null;

  constructor(options: HttpServerOptions) {
    this.#options = options;
    this.#fetch = fetchWithHeaders(options.url.origin, options.headers);
  }

  get sessionId(): string | undefined {
    return this.#inner?.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#inner?.setProtocolVersion?.(version);
  }

  /** Renews an expired OAuth token first; the connection itself opens with the first message. */
  async start(): Promise<void> {
    await this.#options.auth?.refreshIfExpired(this.#options.url, this.#fetch);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      if (this.#inner) return await this.#inner.send(message, options);
      await this.#open(message);
    } catch (error) {
      // The server went away or forgot the session: the connection is over, so the SDK fails
      // what is pending and the next call connects again.
      if (this.#inner && error instanceof TypeError) {
        this.#end(`could not be reached (${networkCause(error)})`);
      } else if (this.#inner && statusOf(error) === 404) {
        this.#end("forgot its session (HTTP 404)");
      }
      throw this.#explain(error);
    }
  }

  async close(): Promise<void> {
    const inner = this.#inner;
    if (inner instanceof StreamableHTTPClientTransport && inner.sessionId !== undefined) {
      // Best effort, as the spec has it: a server that has gone cannot end the session.
      await inner.terminateSession().catch(() => {});
    }
    await inner?.close();
    this.#end("closed the connection");
  }

  describeExit(): string {
    return this.#ended ?? "closed the connection";
  }

  /** A remote server has no stderr: what went wrong is in the error itself. */
  lastDiagnostic(): string {
    return "";
  }

  /** Tries Streamable HTTP with the first message (`initialize`), then HTTP+SSE on a 4xx. */
  async #open(first: JSONRPCMessage): Promise<void> {
    const { url, auth } = this.#options;
    const streamable = new StreamableHTTPClientTransport(url, {
      fetch: this.#fetch,
      ...(auth ? { authProvider: auth } : {}),
    });
    streamable.onmessage = (message) => this.onmessage?.(message);
    await streamable.start();
    let refusal: string;
    try {
      await streamable.send(first);
      return this.#use(streamable, "streamable-http");
    } catch (error) {
      // A failed attempt's late messages must not reach the client.
      streamable.onmessage = () => {};
      await streamable.close();
      if (!shouldFallBack(error)) throw error;
      refusal = httpDetail(error);
    }
    const sse = new SSEClientTransport(url, {
      fetch: this.#fetch,
      ...(auth ? { authProvider: auth } : {}),
    });
    sse.onmessage = (message) => this.onmessage?.(message);
    try {
      await sse.start();
    } catch (error) {
      await sse.close();
      // A login the SSE endpoint asked for is the same login, not a failed fallback.
      if (
        error instanceof ServerStartError || error instanceof UnauthorizedError ||
        isUnauthorized(error)
      ) throw error;
      throw new Error(
        `it answers neither Streamable HTTP (${refusal}) nor HTTP+SSE ` +
          `(${httpDetail(error)})`,
        { cause: error },
      );
    }
    await sse.send(first);
    this.#use(sse, "sse");
  }

  #use(inner: Transport, kind: HttpTransportKind): void {
    this.#inner = inner;
    this.kind = kind;
    if (this.#protocolVersion !== undefined) inner.setProtocolVersion?.(this.#protocolVersion);
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => this.#end("closed the connection");
  }

  /** Reports the end once, however it came. */
  #end(how: string): void {
    if (this.#ended !== null) return;
    this.#ended = how;
    this.onclose?.();
  }

  /** The SDK's and fetch's errors worded for a person, without a header or token in them. */
  #explain(error: unknown): Error {
    if (error instanceof ServerStartError) return error;
    const shown = displayUrl(this.#options.url);
    if (isUnauthorized(error)) {
      const variable = this.#options.bearerVariable;
      return new ServerStartError(
        variable
          ? `${shown} refused the token in ${variable} (HTTP ${statusOf(error)}): ` +
            `check the variable's value, or mcp_servers' bearer_token_env_var`
          : `${shown} wants authorization (HTTP ${statusOf(error)}) and offers no OAuth login ` +
            `replio can use: set bearer_token_env_var or headers in its mcp_servers entry`,
        { cause: error },
      );
    }
    if (error instanceof TypeError) {
      return new Error(`cannot reach ${shown}: ${networkCause(error)}`, { cause: error });
    }
    if (error instanceof StreamableHTTPError || error instanceof SseError) {
      return new Error(`${shown} answered ${httpDetail(error)}`, { cause: error });
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * `fetch` with the configured headers added to requests for `origin` only: an OAuth
 * authorization server elsewhere never gets them, nor does the target of a redirect to another
 * origin (fetch itself would carry them there: it drops only Authorization).
 */
export function fetchWithHeaders(
  origin: string,
  headers: Readonly<Record<string, string>>,
): FetchLike {
  if (Object.keys(headers).length === 0) return (input, init) => fetch(input, init);
  const fetchAdding = async (input: string | URL, init: RequestInit | undefined, hops: number) => {
    const url = new URL(input);
    if (url.origin !== origin) return await fetch(input, init);
    const merged = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    if (init?.redirect === "manual" || init?.redirect === "error") {
      return await fetch(input, { ...init, headers: merged });
    }
    const response = await fetch(input, { ...init, headers: merged, redirect: "manual" });
    const location = response.headers.get("location");
    const method = (init?.method ?? "GET").toUpperCase();
    // Followed here, hop by hop; only reads are followed, as a body cannot be sent twice.
    if (!REDIRECTS.has(response.status) || !location || (method !== "GET" && method !== "HEAD")) {
      return response;
    }
    await response.body?.cancel();
    if (hops >= MAX_REDIRECTS) throw new TypeError(`too many redirects from ${displayUrl(url)}`);
    return await fetchAdding(new URL(location, url), init, hops + 1);
  };
  return (input, init) => fetchAdding(input, init, 0);
}

/** The statuses fetch follows. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** As many as fetch follows. */
const MAX_REDIRECTS = 20;

/**
 * A URL as messages show it: without user info, query or fragment, where secrets are put.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   displayUrl(new URL("https://u:p@example.com/mcp?key=s3cret")),
 *   "https://example.com/mcp",
 * );
 * ```
 */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** The spec's rule: a 4xx to the POST means an older server; 401 and 403 are about auth. */
function shouldFallBack(error: unknown): boolean {
  const status = statusOf(error);
  return status !== null && status >= 400 && status < 500 && !isUnauthorized(error);
}

function isUnauthorized(error: unknown): boolean {
  const status = statusOf(error);
  return status === 401 || status === 403;
}

/**
 * What fetch says went wrong, in short. Its own message is "fetch failed"; the cause's ends with
 * what happened: "error sending request for url (…): …: tcp connect error: Connection refused".
 */
function networkCause(error: TypeError): string {
  const full = error.cause instanceof Error ? error.cause.message : error.message;
  return full.split(": ").at(-1) ?? full;
}

function statusOf(error: unknown): number | null {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    return typeof error.code === "number" && error.code > 0 ? error.code : null;
  }
  return null;
}

/** `HTTP 404: <the body's start>`, or the error's own words when there was no status. */
function httpDetail(error: unknown): string {
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  // The SDK's prefixes say nothing a person needs.
  const body = message.replace(/^(Streamable HTTP error|SSE error): /, "")
    .replace(/^Error POSTing to endpoint: /, "").replace(/\s+/g, " ").trim().slice(0, BODY_CHARS);
  return status === null ? body : `HTTP ${status}${body ? `: ${body}` : ""}`;
}
