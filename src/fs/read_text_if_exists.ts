/**
 * Reading a file that may not be there. A leaf module: every area may import it (plugins through
 * the plugin API).
 * @module
 */

/**
 * The file's text, or null when nothing is at the path (missing, or a file stands where a folder
 * should: `a.txt/b`); every other failure is thrown.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(await readTextIfExists("/nonexistent/file.txt"), null);
 * ```
 */
export async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}
