/**
 * The error the HTTP API answers with: a status and `{error: {message, type, code, param}}`,
 * the shape OpenAI's API uses, so its SDKs read replio's errors as they read OpenAI's.
 * @module
 */

/** The `type` of an error: OpenAI's words, `invalid_request_error` for 4xx, `server_error` else. */
export type ErrorType = "invalid_request_error" | "server_error";

/** Optional parts of an {@link HttpError}. */
export interface HttpErrorOptions {
  /** Response headers (`Allow`, `WWW-Authenticate`). */
  headers?: Readonly<Record<string, string>>;
  /** The request field at fault (`"n"`, `"tools"`, `"model"`); null when it is no one field. */
  param?: string | null;
}

/** A request the server refuses; the router turns it into a JSON error response. */
export class HttpError extends Error {
  override name = "HttpError";
  readonly headers: Readonly<Record<string, string>>;
  readonly param: string | null;
  readonly type: ErrorType;

  /** `code` is a stable snake_case word clients may branch on; `message` says what to do. */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
    this.type = errorType(status);
  }
}

/**
 * The error `type` for an HTTP status, as OpenAI's API words it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(errorType(404), "invalid_request_error");
 * assert.equal(errorType(502), "server_error");
 * ```
 */
export function errorType(status: number): ErrorType {
  return status >= 500 ? "server_error" : "invalid_request_error";
}
