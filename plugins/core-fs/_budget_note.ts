/**
 * The budgets grep and glob search under (`search.time_budget`, `search.max_results`) and the
 * note an incomplete search ends with: what stopped it and exactly what was left unsearched.
 * @module
 */
import type { ToolContext } from "../../src/plugins/api.ts";
import type { SearchCoverage } from "./_grep_types.ts";

/** The limits of one search. */
export interface SearchBudget {
  /** Milliseconds before the search returns what it found. */
  timeMs: number;
  /** Matching lines (grep) or files (glob) after which it stops; 0 = unlimited. */
  maxResults: number;
}

/** The budget from the config, with a test's overrides. */
export function searchBudget(
  ctx: ToolContext,
  overrides: { budgetMs?: number | undefined; maxResults?: number | undefined },
): SearchBudget {
  return {
    timeMs: overrides.budgetMs ?? ctx.config.get("search.time_budget") * 1000,
    maxResults: overrides.maxResults ?? ctx.config.get("search.max_results"),
  };
}

/**
 * `1,234`: counts in notes read at a glance.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(count(48000), "48,000");
 * ```
 */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** `stopped after 2.0 s` or `stopped at 500 matching lines (search.max_results)`. */
export function stoppedClause(
  stoppedBy: SearchCoverage["stoppedBy"],
  budget: SearchBudget,
  unit: string,
): string {
  return stoppedBy === "time"
    ? `stopped after ${formatDuration(budget.timeMs)}`
    : `stopped at ${count(budget.maxResults)} ${unit} (search.max_results)`;
}

/**
 * `2.0 s`, or `30 ms` under a second.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(formatDuration(2000), "2.0 s");
 * assert.equal(formatDuration(30), "30 ms");
 * ```
 */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `1 file` / `2 files`. */
export function plural(n: number, word: string): string {
  return `${count(n)} ${n === 1 ? word : `${word}s`}`;
}

/**
 * What grep covered, exactly: `14,210 of 48,000 files searched`; with folders still unread,
 * the files listed so far; for ripgrep, which is killed mid-search and reports nothing, the
 * files with matches and, when a count got that far, how many there were to search.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const rg = { stoppedBy: "time", searched: null, listed: 0, dirsUnread: 0 } as const;
 * assert.equal(
 *   grepCoverage({ ...rg, total: { count: 48000, complete: true } }, 3),
 *   "ripgrep was stopped mid-search with 3 files matched so far, of 48,000 files to search; " +
 *     "how many files it had read is not known",
 * );
 * assert.equal(
 *   grepCoverage({ stoppedBy: "time", searched: 14210, listed: 48000, dirsUnread: 0 }, 9),
 *   "14,210 of 48,000 files searched",
 * );
 * ```
 */
export function grepCoverage(coverage: SearchCoverage, filesWithMatches: number): string {
  if (coverage.searched === null) {
    const { total } = coverage;
    // A count cut short before it found a file says nothing.
    const of = total === undefined || (!total.complete && total.count === 0)
      ? ""
      : `, of ${total.complete ? "" : "at least "}${plural(total.count, "file")} to search`;
    return `ripgrep was stopped mid-search with ${plural(filesWithMatches, "file")} matched ` +
      `so far${of}; how many files it had read is not known`;
  }
  if (coverage.dirsUnread === 0) {
    return `${count(coverage.searched)} of ${plural(coverage.listed, "file")} searched`;
  }
  return `${count(coverage.searched)} of the ${plural(coverage.listed, "file")} listed so far ` +
    `searched, ${plural(coverage.dirsUnread, "folder")} not yet listed`;
}
