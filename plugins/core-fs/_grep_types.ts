/**
 * What grep's two engines share: the search they are given and the matches they return, so
 * that one formatter turns either into the same text.
 * @module
 */

/** Matched lines stored per file: no result shows more, and a file may match millions. */
export const MAX_STORED_MATCHES = 250;

/** One search, as both engines receive it. */
export interface SearchRequest {
  /** Absolute, resolved file or folder to search. */
  target: string;
  /** Whether `target` is a single file (searched even when ignored; `glob` does not apply). */
  isFile: boolean;
  worktree: string;
  /** The pattern as both engines use it (ripgrep gets it translated to its syntax). */
  regex: RegExp;
  ignoreCase: boolean;
  /** Only files whose path relative to `target` matches this glob. */
  glob: string | undefined;
  /** Lines shown before and after each match. */
  context: number;
  signal: AbortSignal;
  /** The `performance.now()` time after which the search returns what it has. */
  deadline: number;
  /** Matched lines after which the search stops and returns them; 0 = unlimited. */
  maxResults: number;
}

/** The matches in one file. */
export interface FileMatches {
  /** Absolute path. */
  path: string;
  /** Line number → text without its line ending, for stored matches and their context. */
  lines: Map<number, string>;
  /** Stored matched line numbers, ascending, at most {@link MAX_STORED_MATCHES}. */
  matched: number[];
  /** Every matched line, stored or not. */
  matchCount: number;
  /** Modification time in ms, when the engine learnt it while reading the file. */
  mtime?: number;
}

/** What an engine found, and whether it searched everything before the deadline. */
export interface SearchOutcome {
  files: FileMatches[];
  complete: boolean;
  /** For an incomplete search: what stopped it and what is exactly known of the rest. */
  coverage?: SearchCoverage;
}

/**
 * What an incomplete search covered, as far as the engine knows it exactly: the built-in
 * engine counts every file; ripgrep, killed mid-search, cannot say which files it had read.
 */
export interface SearchCoverage {
  /** The time budget ran out, or `maxResults` matched lines were found. */
  stoppedBy: "time" | "results";
  /** Files searched to the end; `null` when the engine cannot know (ripgrep). */
  searched: number | null;
  /** Files found to search (after the glob); with `dirsUnread` 0 this is all of them. */
  listed: number;
  /** Folders the walk had found but not read when it stopped. */
  dirsUnread: number;
  /**
   * ripgrep: the files there were to search, as far as a count beside the search got (it
   * starts at half the time budget); absent when it never started.
   */
  total?: { count: number; complete: boolean };
}
