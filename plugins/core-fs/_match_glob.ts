/**
 * The glob dialect glob and grep share: gitignore-like, as ripgrep's `--glob` reads it.
 * @module
 */

/**
 * A matcher for `/`-separated paths relative to the searched folder. A pattern without `/`
 * matches the file name at any depth; a leading `/` or `./` anchors it to the folder.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal((await compileGlob("*.ts"))("src/a.ts"), true);
 * assert.equal((await compileGlob("src/*.ts"))("src/sub/a.ts"), false);
 * assert.equal((await compileGlob("src/**\/*.ts"))("src/sub/a.ts"), true);
 * ```
 */
export async function compileGlob(pattern: string): Promise<(rel: string) => boolean> {
  // Loaded on first use, like every package a tool needs only when it runs.
  const { default: picomatch } = await import("picomatch");
  const anchored = pattern.replace(/^\.?\//, "");
  const isMatch: (path: string) => boolean = picomatch(anchored, {
    dot: true,
    basename: !pattern.includes("/"),
  });
  return (rel) => isMatch(rel);
}
