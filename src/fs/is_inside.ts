/**
 * Whether a path lies in a folder, for the policy's worktree checks and folder trust alike.
 * @module
 */
import { isAbsolute, relative, sep } from "./path.ts";

/**
 * Whether `path` (already resolved) is `folder` or inside it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isInside("/w/a/b", "/w"), true);
 * assert.equal(isInside("/wx", "/w"), false);
 * assert.equal(isInside("/w/..x", "/w"), true);
 * ```
 */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}
