/**
 * The order glob and grep list files in: most recently modified first, the files the model
 * is most likely working on.
 * @module
 */
import { isMissing } from "./_path_errors.ts";
import { pauser } from "./_walk.ts";

/**
 * Sorts by modification time, newest first, then by path; a file removed meanwhile is
 * dropped. An item's `mtime` saves the stat when its engine already read it. Stats are
 * synchronous: thousands of async ones cost more than the search itself.
 */
export async function newestFirst<T extends { path: string; mtime?: number }>(
  items: readonly T[],
  signal: AbortSignal,
): Promise<T[]> {
  const pause = pauser(signal);
  const dated: { item: T; mtime: number }[] = [];
  for (const item of items) {
    await pause();
    try {
      dated.push({ item, mtime: item.mtime ?? Deno.statSync(item.path).mtime?.getTime() ?? 0 });
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  dated.sort((a, b) =>
    b.mtime - a.mtime || (a.item.path < b.item.path ? -1 : a.item.path > b.item.path ? 1 : 0)
  );
  return dated.map((d) => d.item);
}
