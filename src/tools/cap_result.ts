/**
 * The result-size rule of spec/tools.md §Result size.
 * @module
 */

/** The marker that ends a capped result. */
export const TRUNCATED_MARKER = "... (truncated)";

/**
 * Cuts `text` to at most `maxChars` at a line boundary and appends the truncation marker;
 * `0` means unlimited. A single line longer than the cap is cut mid-line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(capResult("aaa\nbbb\nccc", 9), "aaa\nbbb\n... (truncated)");
 * assert.equal(capResult("short", 0), "short");
 * ```
 */
export function capResult(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const cut = text.lastIndexOf("\n", maxChars - 1);
  const kept = cut > 0 ? text.slice(0, cut + 1) : text.slice(0, maxChars) + "\n";
  return kept + TRUNCATED_MARKER;
}
