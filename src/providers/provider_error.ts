/**
 * The failure a provider reports: `chat()` ends with it as an `error` event, `complete()`
 * throws it.
 * @module
 */

/**
 * What failed: `auth` (key refused), `rate_limit` (429), `server_error` (5xx or an error the
 * server streamed), `bad_request` (another 4xx), `connection` (unreachable or dropped),
 * `timeout` (stream silent too long), `bad_response` (unparsable data), `incomplete_stream`
 * (ended before a finish reason), `internal` (a bug of ours).
 */
export type ProviderErrorCode =
  | "auth"
  | "rate_limit"
  | "server_error"
  | "bad_request"
  | "connection"
  | "timeout"
  | "bad_response"
  | "incomplete_stream"
  | "internal";

/** A failed model request; `code` is what callers branch on, the message says what to do. */
export class ProviderError extends Error {
  override name = "ProviderError";
  /** What failed. */
  readonly code: ProviderErrorCode;

  constructor(code: ProviderErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
