/**
 * The directory walk behind glob and grep's built-in engine: ignore files as git and ripgrep
 * read them, the skipped directories, symlinks left alone, and a time and a result budget
 * (`search.time_budget`, `search.max_results`).
 * @module
 */
import type { Ignore } from "ignore";
import { join, relative, sep } from "../../src/plugins/api.ts";

/**
 * Directories no listing or search descends into: version-control data, dependency trees,
 * caches, and replio's own sessions, which would echo the conversation back.
 */
export const SKIPPED_DIRS: readonly string[] = [
  ".git",
  ".hg",
  ".svn",
  ".jj",
  ".replio",
  "node_modules",
  "__pycache__",
  ".venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
];

/**
 * Ignore files read in each directory, lowest precedence first, as ripgrep reads them;
 * `.git/info/exclude` joins them where a repository starts.
 */
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];

/** Longest stretch of synchronous work before timers and signal handlers get to run. */
const YIELD_EVERY_MS = 20;

/** A file the walk found. */
export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk's root, `/`-separated. */
  rel: string;
}

/** What {@link walkFiles} needs. */
export interface WalkOptions {
  /** Absolute, resolved directory to walk. */
  root: string;
  /** The worktree: ignore files between it and `root` apply too. */
  worktree: string;
  signal: AbortSignal;
  /** The `performance.now()` time after which the walk stops early. */
  deadline: number;
  /** Keeps only the files it accepts (glob's pattern); all files when absent. */
  filter?: ((file: WalkedFile) => boolean) | undefined;
  /** Stops once this many files were kept; unlimited when absent or 0. */
  maxFiles?: number | undefined;
}

/** The files found, and whether the walk finished before its deadline. */
export interface WalkResult {
  files: WalkedFile[];
  complete: boolean;
  /** What stopped an incomplete walk: its deadline or `maxFiles`. */
  stoppedBy: "time" | "results" | null;
  /** Regular files the walk looked at, kept or not. */
  seen: number;
  /** Folders found but not yet read when the walk stopped: the part left unsearched. */
  dirsUnread: number;
}

/** Ignore rules read in one directory; they match paths relative to it. */
interface DirRules {
  dir: string;
  matcher: Ignore;
}

/**
 * Lists the regular files under `root` that no ignore file excludes, skipping
 * {@link SKIPPED_DIRS} and symlinks (a link could lead out of the tree or round in a loop).
 * Synchronous reads are several times faster than async ones for many small directories; the
 * walk pauses every few milliseconds so that cancellation still lands.
 */
export async function walkFiles(options: WalkOptions): Promise<WalkResult> {
  const { root, signal, deadline } = options;
  // Loaded on first use: importing the package costs tens of milliseconds at start-up.
  const { default: ignore } = await import("ignore");
  const readRules = (dir: string, entries: readonly Deno.DirEntry[] | null) =>
    readDirRules(dir, entries, ignore);
  const files: WalkedFile[] = [];
  const { filter, maxFiles = 0 } = options;
  let seen = 0;
  const pending = [{ dir: root, rel: "", rules: ancestorRules(root, options.worktree, readRules) }];
  const pause = pauser(signal);
  const stop = (stoppedBy: "time" | "results"): WalkResult => ({
    files,
    complete: false,
    stoppedBy,
    seen,
    dirsUnread: pending.length,
  });
  while (pending.length > 0) {
    await pause();
    if (performance.now() > deadline) return stop("time");
    if (maxFiles > 0 && files.length >= maxFiles) return stop("results");
    const { dir, rel, rules } = pending.pop()!;
    const entries = readEntries(dir);
    const own = readRules(dir, entries);
    const active = own ? [...rules, own] : rules;
    for (const entry of entries) {
      if (entry.isSymlink || (!entry.isFile && !entry.isDirectory)) continue;
      if (entry.isDirectory && SKIPPED_DIRS.includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (isIgnored(active, path, entry.isDirectory)) continue;
      const entryRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) {
        pending.push({ dir: path, rel: entryRel, rules: active });
        continue;
      }
      seen++;
      const file = { path, rel: entryRel };
      if (!filter || filter(file)) files.push(file);
    }
  }
  return { files, complete: true, stoppedBy: null, seen, dirsUnread: 0 };
}

/**
 * Whether the tree under `root` holds at most `maxFiles` regular files, counted as the walk
 * would find them but without its ignore rules: cheap, so a large tree is known after a few
 * folders. A tree of very many folders counts as large too.
 */
export function holdsAtMost(root: string, maxFiles: number): boolean {
  const pending = [root];
  let files = 0;
  let entries = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of readEntries(dir)) {
      if (++entries > 4 * maxFiles) return false;
      if (entry.isFile && ++files > maxFiles) return false;
      if (entry.isDirectory && !SKIPPED_DIRS.includes(entry.name)) {
        pending.push(join(dir, entry.name));
      }
    }
  }
  return true;
}

/**
 * A function to await between pieces of synchronous work: it lets timers and signal handlers
 * run every {@link YIELD_EVERY_MS} and throws once `signal` is aborted.
 */
export function pauser(signal: AbortSignal): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since >= YIELD_EVERY_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      since = performance.now();
    }
    signal.throwIfAborted();
  };
}

/**
 * Whether `path` is excluded: the deepest directory with a rule about it decides, so a nested
 * `.gitignore` can re-include what a parent's excludes.
 */
function isIgnored(rules: readonly DirRules[], path: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { dir, matcher } = rules[i]!;
    // Paths are built by joining onto these directories, so slicing is relative() without
    // its cost, which showed in profiles of large walks.
    let rel = path.slice(dir.length + 1);
    if (sep !== "/") rel = rel.replaceAll(sep, "/");
    const result = matcher.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

/**
 * Rules from the worktree down to `root`'s parent, so searching `src` still honours the
 * worktree's `.gitignore`. A root those rules exclude was asked for by name, and is searched
 * as if they did not exist (ripgrep does the same).
 */
function ancestorRules(
  root: string,
  worktree: string,
  readRules: (dir: string, entries: null) => DirRules | null,
): DirRules[] {
  const rel = relative(worktree, root);
  if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) return [];
  const rules: DirRules[] = [];
  let dir = worktree;
  for (const part of rel.split(sep)) {
    const own = readRules(dir, null);
    if (own) rules.push(own);
    dir = join(dir, part);
  }
  return isIgnored(rules, root, true) ? [] : rules;
}

function readEntries(dir: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(dir)];
  } catch (error) {
    // A directory removed or locked mid-walk is skipped, as find and ripgrep skip it.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return [];
    }
    throw error;
  }
}

/** The ignore rules `dir` holds; `entries` (when known) saves reading files that are absent. */
function readDirRules(
  dir: string,
  entries: readonly Deno.DirEntry[] | null,
  ignore: () => Ignore,
): DirRules | null {
  const has = (name: string) => entries === null || entries.some((e) => e.name === name);
  const sources = [
    ...(has(".git") ? [join(dir, ".git", "info", "exclude")] : []),
    ...IGNORE_FILES.filter(has).map((name) => join(dir, name)),
  ];
  let matcher: Ignore | null = null;
  for (const source of sources) {
    let text: string;
    try {
      text = Deno.readTextFileSync(source);
    } catch (error) {
      // Absent (the usual case when probing a directory's parents) or unreadable: no rules.
      if (
        error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
        error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.IsADirectory
      ) continue;
      throw error;
    }
    matcher = (matcher ?? ignore()).add(text);
  }
  return matcher ? { dir, matcher } : null;
}
