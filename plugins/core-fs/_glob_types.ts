/**
 * What glob's two engines share: the search they are given and the files they return, so that
 * glob words either's answer the same way.
 * @module
 */

/** One glob search, as both engines receive it. */
export interface GlobRequest {
  /** Absolute, resolved folder to search. */
  root: string;
  worktree: string;
  /** The pattern relative to `root`, in the dialect of _match_glob.ts. */
  pattern: string;
  /** The pattern compiled: whether a `/`-separated path relative to `root` matches. */
  isMatch: (rel: string) => boolean;
  signal: AbortSignal;
  /** The `performance.now()` time after which the search returns what it has. */
  deadline: number;
  /** Matching files after which the search stops and returns them; 0 = unlimited. */
  maxResults: number;
}

/** What an engine found, and what stopped it early, if anything. */
export interface GlobOutcome {
  /** Matching files: absolute paths, with the modification time when the engine read it. */
  files: { path: string; mtime?: number }[];
  /** The time budget ran out, or `maxResults` files matched; null when the search finished. */
  stoppedBy: "time" | "results" | null;
  /**
   * For a stopped search, what it covered as far as the engine knows it exactly:
   * `14,210 files looked at, 312 folders not yet read`.
   */
  coverage: string;
}
