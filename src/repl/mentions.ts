/**
 * `@path` mentions in a message: the files a person attaches by naming them.
 * @module
 */

/**
 * The paths mentioned as `@path` (at the start or after a space; `a@b.c` is no mention), once
 * each, in order; trailing sentence punctuation is not part of the path.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(findMentions("compare @src/a.ts and @b.md, not me@x.org"), ["src/a.ts", "b.md"]);
 * ```
 */
export function findMentions(text: string): string[] {
  const paths = [...text.matchAll(/(?:^|\s)@([^\s@]+)/g)]
    .map((match) => match[1]!.replace(/[.,;:!?)]+$/, ""))
    .filter((path) => path !== "");
  return [...new Set(paths)];
}
