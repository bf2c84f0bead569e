/**
 * Errors of access rather than of replio: a Deno grant the process lacks, a read-only file
 * system, a file the user may not write. Every area may import it: each degrades or reports
 * these in one line instead of a stack.
 * @module
 */

/** Whether `error` is a missing Deno grant or an EROFS / EACCES / EPERM from the system. */
export function isAccessError(error: unknown): error is Error {
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return true;
  }
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === "EROFS" || code === "EACCES" || code === "EPERM" ||
    /\(os error (30|13|1)\)/.test(error.message);
}

/**
 * One line for an access error, ending with what to do: Deno's own advice (re-run with a broad
 * flag) is replaced by the narrow grant, a read-only file system is named as such.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const error = new Deno.errors.NotCapable('Requires write access to "/w/x", run again with the --allow-write flag');
 * assert.equal(describeAccessError(error), 'Requires write access to "/w/x": restart replio with --allow-write=/w/x (or a parent directory)');
 * ```
 */
export function describeAccessError(error: Error): string {
  const message = error.message.split("\n")[0] ?? "";
  const denoAsk = /^Requires (\w+) access to "?([^",]*)"?, run again with the --allow-(\w+) flag/
    .exec(message);
  if (denoAsk) {
    const [, kind, target, flag] = denoAsk;
    const scoped = kind === "read" || kind === "write"
      ? `--allow-${flag}=${target} (or a parent directory)`
      : `--allow-${flag}=${target}`;
    return `Requires ${kind} access to "${target}": restart replio with ${scoped}`;
  }
  // Already explained (writeFileAtomic names the file): keep it as it is.
  if (/read-only here/.test(message)) return message;
  if (
    /read-only file system|os error 30/i.test(message) ||
    (error as { code?: unknown }).code === "EROFS"
  ) {
    return `${message}: the file system is read-only here: run replio where it may write`;
  }
  return message;
}
