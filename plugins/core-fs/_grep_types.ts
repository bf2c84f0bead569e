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
}
