/**
 * Modification times set in order, for tests of tools that list files newest first.
 * @module
 */
import { join } from "node:path";

/** Sets each file's modification time, a minute apart: the first is newest. */
export async function age(root: string, paths: string[]): Promise<void> {
  const now = Date.now() / 1000;
  for (const [i, path] of paths.entries()) {
    await Deno.utime(join(root, path), now - i * 60, now - i * 60);
  }
}
