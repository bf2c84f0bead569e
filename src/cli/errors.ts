/**
 * Errors the CLI maps to exit codes (DESIGN.md §4).
 * @module
 */

/** A bad flag, flag value or argument: exit 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Exit codes of the command-line contract. */
export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  denied: 3,
  /** `run --park` stopped at a call that waits for `replio approve` / `replio deny`. */
  parked: 4,
  cancelled: 130,
} as const;
