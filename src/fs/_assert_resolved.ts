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
export async function assertResolved(file: string): Promise<void> {
  const dir = dirname(file);
  const realDir = await Deno.realPath(dir);
  const info = await lstatOrNull(file);
  if (realDir === dir && !info?.isSymlink) return;
  throw new TypeError(
    `Cannot write "${file}": a symlink appeared on the path after it was checked, so the ` +
      `write could land elsewhere: nothing was written: check the path and call again`,
  );
}

/** `lstat`, or null when nothing is there. */
export async function lstatOrNull(file: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
