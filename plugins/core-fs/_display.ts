/**
 * How core-fs tools show paths and sizes to the model.
 * @module
 */
import { isAbsolute, relative, sep } from "../../src/plugins/api.ts";

/**
 * A resolved path as results show it: relative to the worktree when inside it, else absolute.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(displayPath("/w/src/a.ts", "/w"), "src/a.ts");
 * assert.equal(displayPath("/w", "/w"), ".");
 * assert.equal(displayPath("/etc/hosts", "/w"), "/etc/hosts");
 * ```
 */
export function displayPath(absolute: string, worktree: string): string {
  const rel = relative(worktree, absolute);
  if (rel === "") return ".";
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? absolute : rel;
}

const UNITS = ["KB", "MB", "GB", "TB"];

/**
 * A byte count in binary units, one decimal from KB up.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(formatBytes(512), "512 B");
 * assert.equal(formatBytes(1536), "1.5 KB");
 * assert.equal(formatBytes(3 * 1024 ** 3), "3.0 GB");
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
