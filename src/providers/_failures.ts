/**
 * Why one attempt at a model request failed, in words for the person who reads the error, and
 * whether another attempt may help: HTTP statuses, connection errors, silence, and answers that
 * are not a model reply.
 * @module
 */
import { HTML_FIX } from "./describe_html.ts";
import { CONNECTION_FIX } from "./list_models.ts";
import type { ProviderErrorCode } from "./provider_error.ts";

/** Server messages and error pages are cut to this in messages. */
const MAX_SERVER_MESSAGE_CHARS = 300;
/** Enough of a body that is not a stream to recognise it (a login page, a JSON error). */
const MAX_SHOWN_BODY_CHARS = 100;
/** The fix when the answer is not what an OpenAI-compatible server sends. */
const NOT_OPENAI_FIX = "check that base_url points at an OpenAI-compatible /v1 endpoint";

/** Why one attempt failed, and whether another attempt may help. */
export interface Failure {
  code: ProviderErrorCode;
  /** What happened, e.g. `HTTP 500: upstream error`. */
  detail: string;
  /** What the user can do, the message's last part. */
  fix: string;
  retryable: boolean;
  /** Response headers, for Retry-After. */
  headers?: Headers;
}

/** A failure detected by our own reading of a response; the retry loop unwraps it. */
export class AttemptFailure extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.detail);
    this.failure = failure;
  }
}

/** The endpoint a failure is about, for its wording. */
export interface Endpoint {
  baseUrl: string;
  model: string;
  /** The config's `api_key_env`: the variable a person sets to fix a refused key. */
  apiKeyEnv: string;
  /** Whether a key was sent. */
  hasKey: boolean;
}

/**
 * Server text on one line, cut to message size.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(oneLine("  upstream\n  error  "), "upstream error");
 * assert.equal(oneLine("abcdef", 3), "abc…");
 * ```
 */
export function oneLine(text: string, maxChars = MAX_SERVER_MESSAGE_CHARS): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/**
 * The server's own words from an error body: `{"error": {"message"}}`, else the text itself.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(serverMessage('{"error":{"message":"bad model"}}'), "bad model");
 * assert.equal(serverMessage(""), "no details");
 * ```
 */
export function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text);
    const error = isRecord(body) ? body.error ?? body : undefined;
    if (isRecord(error) && typeof error.message === "string") return oneLine(error.message);
    if (typeof error === "string") return oneLine(error);
  } catch {
    // Not JSON (an HTML error page from a proxy): the text, cut to one line, says what came back.
  }
  return oneLine(text) || "no details";
}

/**
 * A non-2xx answer. 429 and 5xx are retried (unless `x-should-retry: false`); 401 and 403 name
 * the key variable; a 404 takes `notFoundFix`, which only a second look at the server can give.
 */
export function httpFailure(
  response: { status: number; headers: Headers; message: string },
  endpoint: Endpoint,
  notFoundFix: string,
): Failure {
  const { status, headers } = response;
  const detail = `HTTP ${status}: ${response.message}`;
  const hint = headers.get("x-should-retry");
  const retryable = hint === "true" || (hint !== "false" && (status === 429 || status >= 500));
  if (status === 401 || status === 403) {
    return { code: "auth", detail, fix: keyFix(endpoint), retryable: false };
  }
  if (status === 429) {
    const fix = "wait a minute and retry, or raise max_retries";
    return { code: "rate_limit", detail, fix, retryable, headers };
  }
  if (status >= 500) {
    const fix = `retry later, or check the server at "${endpoint.baseUrl}"`;
    return { code: "server_error", detail, fix, retryable, headers };
  }
  const fix = status === 404
    ? notFoundFix
    : "check model, max_tokens, temperature and reasoning in the config";
  return { code: "bad_request", detail, fix, retryable: false };
}

function keyFix({ apiKeyEnv, hasKey }: Endpoint): string {
  if (!apiKeyEnv) return "set api_key_env to the name of the variable that holds your API key";
  return hasKey
    ? `set ${apiKeyEnv} to a valid API key`
    : `no API key is set: set ${apiKeyEnv} to your API key`;
}

/**
 * What a failed `fetch` means. Deno reports refused connections, DNS failures and bodies cut
 * mid-read as a TypeError whose cause holds the system's words. Nothing listens behind a refused
 * connection to this machine, so retrying only delays the error; a remote host can refuse for a
 * moment while a load balancer swaps backends, so that is retried.
 */
export function connectionFailure(error: TypeError, baseUrl: string): Failure {
  const said = error.cause instanceof Error ? error.cause.message : error.message;
  const reason = said.split(": ").at(-1)?.replace(/\s*\(os error \d+\)$/, "") || said;
  const url = new URL(baseUrl);
  if (/connection refused/i.test(said)) {
    const local = isLoopback(url.hostname);
    return {
      code: "connection",
      detail: local
        ? `connection refused at "${baseUrl}": nothing is listening on port ${portOf(url)}`
        : `connection refused at "${baseUrl}"`,
      fix: local
        ? "start the model server, or set base_url (or --base-url) to the address it listens on"
        : CONNECTION_FIX,
      retryable: !local,
    };
  }
  const blocked = /requests to port (\d+) are blocked/i.exec(said);
  if (blocked) {
    // The fetch standard's "bad ports" (mail, FTP, ...): no attempt will ever be made.
    return {
      code: "connection",
      detail: `cannot connect to port ${blocked[1]}: fetch blocks it, as browsers do`,
      fix: "run the model server on another port and set base_url to it",
      retryable: false,
    };
  }
  if (/dns error/i.test(said)) {
    return {
      code: "connection",
      detail: `cannot find host "${url.hostname}": ${oneLine(reason)}`,
      fix: "check the host name in base_url and that the network is up",
      // "Temporary failure in name resolution" may pass; "Name or service not known" will not.
      retryable: /temporar/i.test(said),
    };
  }
  return {
    code: "connection",
    detail: `connection to "${baseUrl}" failed: ${oneLine(reason)}`,
    fix: CONNECTION_FIX,
    retryable: true,
  };
}

/** No bytes for `stream_idle_timeout` seconds, before the answer began or in the middle of it. */
export function silenceFailure(seconds: number, isAnswering: boolean): Failure {
  return {
    code: "timeout",
    detail: isAnswering
      ? `the stream sent nothing for ${seconds} s`
      : `no answer within ${seconds} s`,
    fix: `retry, or raise stream_idle_timeout (now ${seconds} s) if the model needs longer`,
    retryable: false,
  };
}

/**
 * A 2xx answer that is not a model reply: an HTML page (a proxy, a captive portal, a login), a
 * JSON error, or any other text. `page` is {@link describeHtml}'s description when it is HTML;
 * `body` is the start of what came, shown so the person can recognise it.
 */
export function notAReplyFailure(
  answer: { page: string | null; contentType: string | null; body: string },
  baseUrl: string,
  expected: "an event stream" | "a model reply",
): Failure {
  const begins = answer.body.trim()
    ? `: it begins ${JSON.stringify(oneLine(answer.body, MAX_SHOWN_BODY_CHARS))}`
    : "";
  if (answer.page) {
    return {
      code: "bad_response",
      detail: `"${baseUrl}" answered with ${answer.page}, not ${expected}${begins}`,
      fix: HTML_FIX,
      retryable: false,
    };
  }
  if (!answer.body.trim()) {
    // An empty 200 is what a proxy sends when its upstream dropped: another attempt may work.
    return {
      code: "incomplete_stream",
      detail: `"${baseUrl}" answered with an empty body, not ${expected}`,
      fix: "retry the turn",
      retryable: true,
    };
  }
  const error = jsonError(answer.body);
  if (error !== null) {
    return {
      code: "server_error",
      detail: `"${baseUrl}" answered with an error instead of ${expected}: ${error}`,
      fix: `retry later, or check the server at "${baseUrl}"`,
      retryable: false,
    };
  }
  const type = answer.contentType ? ` (${answer.contentType})` : "";
  return {
    code: "bad_response",
    detail: `"${baseUrl}" answered with something${type} that is not ${expected}${begins}`,
    fix: NOT_OPENAI_FIX,
    retryable: false,
  };
}

/** The `error.message` of a JSON error body, or null when `text` is not one. */
function jsonError(text: string): string | null {
  try {
    const body = JSON.parse(text);
    const error = isRecord(body) ? body.error : undefined;
    if (isRecord(error) && typeof error.message === "string") return oneLine(error.message);
    if (typeof error === "string") return oneLine(error);
  } catch {
    // Cut short or not JSON: the caller shows how the text begins instead.
  }
  return null;
}

/** A data line or body that does not parse as what the protocol promises. */
export function malformedFailure(baseUrl: string, detail: string): Failure {
  return {
    code: "bad_response",
    detail: `malformed reply from "${baseUrl}": ${detail}`,
    fix: NOT_OPENAI_FIX,
    retryable: false,
  };
}

/** The server streamed an error event after the reply began. */
export function streamedErrorFailure(message: string): Failure {
  return {
    code: "server_error",
    detail: `the server reported an error mid-stream: ${oneLine(message)}`,
    fix: "retry the turn",
    retryable: false,
  };
}

/** The stream closed before a finish reason or `[DONE]`. */
export function incompleteFailure(hasYielded: boolean): Failure {
  return {
    code: "incomplete_stream",
    detail: "the stream ended before the reply was finished",
    fix: "retry the turn",
    retryable: !hasYielded,
  };
}

/** Deno's permission layer refused the request: no attempt can succeed in this process. */
export function noNetFailure(baseUrl: string): Failure {
  return {
    code: "connection",
    detail: `no network permission for "${baseUrl}"`,
    fix: `restart replio with --allow-net=${hostPort(new URL(baseUrl))}`,
    retryable: false,
  };
}

/** Anything else thrown while attempting a request: a bug of ours, not the server's. */
export function internalFailure(error: unknown): Failure {
  return {
    code: "internal",
    detail: oneLine(error instanceof Error ? error.message : String(error)),
    fix: "report this as a replio bug",
    retryable: false,
  };
}

/**
 * Whether `hostname` (as `URL` spells it) is this machine.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isLoopback("127.0.0.1"), true);
 * assert.equal(isLoopback("[::1]"), true);
 * assert.equal(isLoopback("api.openai.com"), false);
 * ```
 */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function portOf(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** `host:port` of a URL, as `--allow-net` names it. */
function hostPort(url: URL): string {
  return `${url.hostname}:${portOf(url)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
