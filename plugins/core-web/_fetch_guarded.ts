/**
 * One HTTP exchange for the web tools: redirects followed by hand (each hop re-checked for
 * scheme and private addresses), one deadline over every hop and the body, and a download cap.
 * @module
 */
import { checkHost } from "./_check_host.ts";

/** Statuses whose `Location` is followed. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Options for {@link fetchGuarded}. */
export interface GuardedFetchOptions {
  /** Start of every error message, naming what failed, e.g. `Cannot fetch "https://x/"`. */
  action: string;
  /** Skip the private-address check (`web.allow_private`, or a configured search backend). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  signal: AbortSignal;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Whether the final response's body is worth downloading; false cancels it unread. */
  wantsBody?: (response: Response) => boolean;
}

/** The final response of {@link fetchGuarded}, its body read up to the cap. */
export interface GuardedResponse {
  /** The URL that answered, after redirects. */
  url: URL;
  status: number;
  statusText: string;
  headers: Headers;
  /** Null when `wantsBody` declined it. */
  body: Uint8Array | null;
  /** The body was longer than `maxBytes` and was cut there. */
  isTruncated: boolean;
}

/**
 * Fetches `url` with redirects, deadline and size cap; throws errors that start with
 * `options.action` and end with a fix. Cancellation through `options.signal` is rethrown as is.
 */
export async function fetchGuarded(
  url: URL,
  options: GuardedFetchOptions,
): Promise<GuardedResponse> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    return await followRedirects(url, options, AbortSignal.any([options.signal, deadline.signal]));
  } catch (error) {
    if (options.signal.aborted || !deadline.signal.aborted) throw error;
    throw new Error(
      `${options.action}: no complete response within ${options.timeoutMs / 1000} s: ` +
        `try again later or use another source`,
    );
  } finally {
    clearTimeout(timer);
  }
}

async function followRedirects(
  url: URL,
  options: GuardedFetchOptions,
  signal: AbortSignal,
): Promise<GuardedResponse> {
  const seen = new Set<string>();
  let current = url;
  let method = options.method ?? "GET";
  let body = options.body;
  for (let hop = 0;; hop++) {
    seen.add(current.href);
    if (!options.allowPrivate) {
      const action = hop === 0
        ? options.action
        : `${options.action}: it redirects to "${current.href}"`;
      await assertPublic(current, action, signal);
    }
    let response: Response;
    try {
      response = await fetch(current, {
        method,
        headers: options.headers ?? {},
        ...(body === undefined ? {} : { body }),
        redirect: "manual",
        signal,
      });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null) {
        return await finish(current, response, options);
      }
    } catch (error) {
      throw explainFailure(error, current, options.action);
    }
    await response.body?.cancel();
    const next = parseLocation(response.headers.get("location")!, current, options.action);
    if (seen.has(next.href)) {
      throw new RangeError(
        `${options.action}: redirect loop at "${next.href}": the site keeps redirecting ` +
          `to pages already visited; try another source`,
      );
    }
    if (hop >= options.maxRedirects) {
      throw new RangeError(
        `${options.action}: more than ${options.maxRedirects} redirects (the last to ` +
          `"${next.href}"): try that URL directly or another source`,
      );
    }
    // Browsers turn a redirected POST into a GET except on 307 and 308.
    if (response.status === 303 || (method === "POST" && response.status < 307)) {
      method = "GET";
      body = undefined;
    }
    current = next;
  }
}

/** A missing --allow-net or a failed connection, told in our words; anything else unchanged. */
function explainFailure(error: unknown, url: URL, action: string): unknown {
  if (error instanceof Deno.errors.NotCapable) {
    return new Deno.errors.NotCapable(
      `${action}: replio was started without network access to "${url.hostname}": ` +
        `restart it with --allow-net (or --allow-net=${url.hostname})`,
    );
  }
  // fetch reports refused connections, resets and bad TLS as TypeError; ours are other types.
  if (error instanceof TypeError) {
    return new Error(
      `${action}: the connection to "${url.host}" failed (${rootCause(error)}): ` +
        `check the address and the network`,
    );
  }
  return error;
}

function parseLocation(location: string, base: URL, action: string): URL {
  if (!URL.canParse(location, base)) {
    throw new SyntaxError(
      `${action}: it redirects to an invalid URL "${location}": try another source`,
    );
  }
  const next = new URL(location, base);
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw new RangeError(
      `${action}: it redirects to "${next.href}", which is not http or https: try another source`,
    );
  }
  return next;
}

/** `action` already says which hop failed (the URL, or the redirect to it). */
async function assertPublic(url: URL, action: string, signal: AbortSignal): Promise<void> {
  const check = await checkHost(url.hostname, signal);
  if (check.kind === "public") return;
  if (check.kind === "dns-denied") {
    throw new Deno.errors.NotCapable(
      `${action}: the private-address check may not look up "${url.hostname}" ` +
        `(${check.detail}): the check needs DNS: restart replio with --allow-net ` +
        `(a host list must include the DNS server)`,
    );
  }
  if (check.kind === "unresolved") {
    throw new Error(
      `${action}: host "${url.hostname}" did not resolve (${check.detail}): ` +
        `check the URL`,
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const what = host === check.address
    ? `${check.address} is ${check.phrase}`
    : `"${host}" resolves to ${check.address}, ${check.phrase}`;
  throw new Deno.errors.PermissionDenied(
    `${action}: ${what}: web tools refuse loopback, private, link-local and ` +
      `metadata addresses by default; the user can set web.allow_private to true to allow them`,
  );
}

async function finish(
  url: URL,
  response: Response,
  options: GuardedFetchOptions,
): Promise<GuardedResponse> {
  const head = {
    url,
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  };
  if (!(options.wantsBody?.(response) ?? true)) {
    await response.body?.cancel();
    return { ...head, body: null, isTruncated: false };
  }
  return { ...head, ...await readCapped(response.body, options.maxBytes) };
}

async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ body: Uint8Array; isTruncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (stream === null) return { body: new Uint8Array(), isTruncated: false };
  for await (const chunk of stream) {
    chunks.push(chunk);
    size += chunk.length;
    // Leaving the loop cancels the stream: the rest is never downloaded.
    if (size > maxBytes) break;
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return size > maxBytes
    ? { body: body.subarray(0, maxBytes), isTruncated: true }
    : { body, isTruncated: false };
}

/** The innermost part of a fetch error, e.g. `Connection refused (os error 111)`. */
function rootCause(error: Error): string {
  const cause = error.cause instanceof Error ? error.cause.message : error.message;
  return cause.split(": ").at(-1) ?? cause;
}
