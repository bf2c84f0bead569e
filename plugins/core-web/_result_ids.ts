/**
 * Remembers web_search results so web_fetch can take a short id (`r3`) instead of a URL.
 * Ids count up per worktree across searches, so an id from an earlier search stays valid and
 * never means two pages; the oldest are forgotten past a bound.
 * @module
 */

/** Results remembered per worktree; older ones are forgotten first. */
const MAX_REMEMBERED = 200;

/** One search result. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

const memories = new Map<string, { next: number; hits: Map<string, SearchHit> }>();

/** Stores `hits` for `worktree` and returns their new ids, in order. */
export function rememberResults(worktree: string, hits: readonly SearchHit[]): string[] {
  let memory = memories.get(worktree);
  if (memory === undefined) {
    memory = { next: 1, hits: new Map() };
    memories.set(worktree, memory);
  }
  const ids: string[] = [];
  for (const hit of hits) {
    const id = `r${memory.next++}`;
    memory.hits.set(id, hit);
    ids.push(id);
  }
  for (const id of memory.hits.keys()) {
    if (memory.hits.size <= MAX_REMEMBERED) break;
    memory.hits.delete(id);
  }
  return ids;
}

/**
 * The result an id names in `worktree`; `r2`, `R2`, `[r2]` and `2` all name the same one.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const [id] = rememberResults("/tmp/doc-example", [{ title: "A", url: "https://a.example/", snippet: "" }]);
 * assert.equal(recallResult("/tmp/doc-example", ` [${id!.toUpperCase()}] `)?.url, "https://a.example/");
 * ```
 */
export function recallResult(worktree: string, id: string): SearchHit | undefined {
  const plain = id.trim().replace(/^\[(.*)\]$/, "$1").trim().toLowerCase();
  return memories.get(worktree)?.hits.get(/^\d+$/.test(plain) ? `r${plain}` : plain);
}
