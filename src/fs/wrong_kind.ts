/**
 * The one reading of a path that exists but is the wrong kind: a folder where a file belongs
 * (EISDIR) or a file where a folder belongs (ENOTDIR). They are the user's setup, not replio's
 * bug, and even root meets them, so every area reports them in one line that names the path.
 * @module
 */
import { dirname } from "./path.ts";

/** Whether `error` is a folder read as a file, or a file used as a folder. */
export function isWrongKind(error: unknown): error is Error {
  if (error instanceof Deno.errors.IsADirectory || error instanceof Deno.errors.NotADirectory) {
    return true;
  }
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return code === "EISDIR" || code === "ENOTDIR";
}

/** Options for {@link describeWrongKind}. */
export interface DescribeWrongKindOptions {
  /** The message names `path` already (`Cannot load /x: …`): call it "it". */
  named?: boolean;
}

/**
 * What is wrong at `path`, when an error is {@link isWrongKind}: a folder where a file belongs,
 * or the first part of the path that is a file where a folder belongs; ends with the fix.
 */
export function describeWrongKind(path: string, options: DescribeWrongKindOptions = {}): string {
  const it = options.named ? "it" : `"${path}"`;
  if (statKind(path) === "folder") {
    return `${it} is a folder, not a file: move it away or use another path`;
  }
  for (let part = path; part !== dirname(part); part = dirname(part)) {
    if (statKind(part) !== "file") continue;
    return part === path
      ? `${it} is a file, not a folder: move it away or use another path`
      : `"${part}" is a file, not a folder, so ${it} cannot exist: move the file away`;
  }
  return `${it} is not the kind of file replio expects: check the path`;
}

/**
 * The path a Deno file-system error names (`Is a directory (os error 21): readfile '/x/y'`), or
 * null when it names none.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(pathInError(new Error("Not a directory (os error 20): readdir '/a/b'")), "/a/b");
 * assert.equal(pathInError(new Error("boom")), null);
 * ```
 */
export function pathInError(error: Error): string | null {
  return /: \w+ '([^']+)'(?: -> '[^']+')?$/.exec(error.message.split("\n")[0] ?? "")?.[1] ?? null;
}

/** Synchronous on purpose: it runs only on the way to an error message, never on a fast path. */
function statKind(path: string): "file" | "folder" | null {
  try {
    return Deno.statSync(path).isDirectory ? "folder" : "file";
  } catch (error) {
    // Missing, unreadable or itself under a file: not the part to blame.
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
      error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied
    ) {
      return null;
    }
    throw error;
  }
}
