/**
 * The glob dialect glob and grep share: gitignore-like, as ripgrep's `--glob` reads it.
 * @module
 */
import picomatch from "picomatch";

/**
 * A matcher for `/`-separated paths relative to the searched folder. A pattern without `/`
 * matches the file name at any depth; a leading `/` or `./` anchors it to the folder.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(compileGlob("*.ts")("src/a.ts"), true);
 * assert.equal(compileGlob("src/*.ts")("src/sub/a.ts"), false);
 * assert.equal(compileGlob("src/**\/*.ts")("src/sub/a.ts"), true);
 * ```
 */
export function compileGlob(pattern: string): (rel: string) => boolean {
  const anchored = pattern.replace(/^\.?\//, "");
  const isMatch: (path: string) => boolean = picomatch(anchored, {
    dot: true,
    basename: !pattern.includes("/"),
  });
  return (rel) => isMatch(rel);
}
