/**
 * An error as the REPL prints it: the message people can act on, or the stack of a bug.
 * @module
 */
import { describeAccessError, isAccessError } from "../fs/access_error.ts";

/** Errors whose message is written for people (bad config, usage, the model server). */
const EXPECTED_ERRORS = [
  "ConfigError",
  "UsageError",
  "ProviderError",
  "RangeError",
  "NotFound",
  "AbortError",
];

/**
 * The text of a failed command or turn: the message for an expected error, the stack for a
 * bug, and one line for a missing grant or a read-only file system.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(describeError(new RangeError("Cannot page: o9 is no output")), "Cannot page: o9 is no output");
 * assert.match(describeError(new TypeError("x is undefined")), /^TypeError: x is undefined\n\s+at /);
 * ```
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A missing grant or a read-only file system is the setup, not a bug: no stack.
  if (isAccessError(error as unknown)) return describeAccessError(error);
  return EXPECTED_ERRORS.includes(error.name) ? error.message : error.stack ?? error.message;
}
