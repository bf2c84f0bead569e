/**
 * The write-time half of symlink-safe writes: the policy judged a symlink-resolved path, so
 * the write must land on that path. A link that appears on it in between (a swap) is refused.
 * @module
 */
import { dirname } from "./path.ts";

/**
 * Throws when `file` is no longer what was judged: its folder now resolves elsewhere, or the
 * file itself has become a symlink. A missing file is fine (it is about to be created).
 */
export function assertResolved(file: string): void {
  const dir = dirname(file);
  // Synchronous: two metadata calls of microseconds each, against ~70 µs apiece async.
  const realDir = Deno.realPathSync(dir);
  const info = lstatOrNull(file);
  if (realDir === dir && !info?.isSymlink) return;
  throw new TypeError(
    `Cannot write "${file}": a symlink appeared on the path after it was checked, so the ` +
      `write could land elsewhere: nothing was written: check the path and call again`,
  );
}

/** `lstat`, or null when nothing is there. */
export function lstatOrNull(file: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
