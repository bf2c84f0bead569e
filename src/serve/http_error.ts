/**
 * The error the HTTP API answers with: a status and `{error: {code, message}}`.
 * @module
 */

/** A request the server refuses; the router turns it into a JSON error response. */
export class HttpError extends Error {
  override name = "HttpError";

  /** `code` is a stable snake_case word clients may branch on; `message` says what to do. */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}
