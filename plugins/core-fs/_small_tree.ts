/**
 * When grep and glob search in this process although ripgrep is there: starting `rg` costs a few
 * milliseconds a call (a process, its pipes, its exit), more than walking and searching a tree this
 * small takes here. Most calls of a session are in such trees or folders; a large tree costs one
 * count of its first folders' entries (holdsAtMost in _walk.ts: about 1 ms on a 1M-file tree)
 * before ripgrep takes it.
 * @module
 */

/** Regular files a small tree holds at most, counted before ignore files are applied. */
export const SMALL_TREE_FILES = 200;
/** Bytes grep's small tree holds at most: more would take the built-in engine longer than rg. */
export const SMALL_TREE_BYTES = 1 << 20;

/**
 * Whether the files together hold at most `max` bytes. A file that cannot be looked at counts as
 * none: the search itself meets it and deals with it as either engine does (gone, unreadable).
 */
export function totalBytesAtMost(paths: readonly string[], max: number): boolean {
  let total = 0;
  for (const path of paths) {
    try {
      total += Deno.statSync(path).size;
    } catch {
      continue;
    }
    if (total > max) return false;
  }
  return true;
}
