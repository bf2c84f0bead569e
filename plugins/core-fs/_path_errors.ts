/**
 * Telling "nothing is at this path" apart from real failures.
 * @module
 */

/**
 * Whether an error means the path names nothing: it is absent, or a file stands where the
 * path wants a folder (`a.txt/b`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isMissing(new Deno.errors.NotFound()), true);
 * assert.equal(isMissing(new Deno.errors.PermissionDenied()), false);
 * ```
 */
export function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory;
}

/**
 * Rethrows an error, turning the file system's "permission denied" into a message that names
 * what failed and the way forward.
 */
export function rethrowDenied(error: unknown, failed: string): never {
  if (error instanceof Deno.errors.PermissionDenied) {
    throw new Deno.errors.PermissionDenied(
      `${failed}: the file system denies permission: check its owner and mode, or pick ` +
        `another path`,
    );
  }
  throw error;
}
