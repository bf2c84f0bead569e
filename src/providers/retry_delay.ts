/**
 * How long to wait before retrying a failed model request.
 * @module
 */

/** First backoff step; each further retry doubles it. */
const BASE_DELAY_MS = 500;
/** Backoff ceiling when the server gives no hint. */
const MAX_BACKOFF_MS = 8_000;

/**
 * Milliseconds to wait before retry number `attempt` (0 for the first retry): the server's
 * `retry-after-ms`, else its `Retry-After` (seconds or an HTTP date), else 0.5 s doubling up to
 * 8 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(retryDelayMs(0), 500);
 * assert.equal(retryDelayMs(5), 8000);
 * assert.equal(retryDelayMs(0, new Headers({ "retry-after": "2" })), 2000);
 * assert.equal(retryDelayMs(0, new Headers({ "retry-after-ms": "150" })), 150);
 * ```
 */
export function retryDelayMs(attempt: number, headers?: Headers, now: number = Date.now()): number {
  const millis = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(millis) && millis >= 0) return Math.ceil(millis);
  const after = headers?.get("retry-after")?.trim() ?? "";
  if (/^\d+(\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000);
  const date = Date.parse(after);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** attempt);
}
