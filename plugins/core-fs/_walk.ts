/**
 * The directory walk behind glob and grep's built-in engine: ignore files as git and ripgrep
 * read them, the skipped directories, symlinks left alone, and a time budget.
 * @module
 */
import ignore, { type Ignore } from "ignore";
import { join, relative, sep } from "node:path";

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

/** Seconds a glob or grep may search before it returns what it found with a note. */
export const SEARCH_BUDGET_MS = 20_000;

/**
 * Ignore files read in each directory, lowest precedence first, as ripgrep reads them;
 * `.git/info/exclude` joins them where a repository starts.
 */
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];

/** Directories read at once: enough to hide file-system latency, few enough to stay polite. */
const WALK_CONCURRENCY = 8;

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
}

/** The files found, and whether the walk finished before its deadline. */
export interface WalkResult {
  files: WalkedFile[];
  complete: boolean;
}

/** Ignore rules read in one directory; they match paths relative to it. */
interface DirRules {
  dir: string;
  matcher: Ignore;
}

/**
 * Lists the regular files under `root` that no ignore file excludes, skipping
 * {@link SKIPPED_DIRS} and symlinks (a link could lead out of the tree or round in a loop).
 */
export async function walkFiles(options: WalkOptions): Promise<WalkResult> {
  const { root, signal, deadline } = options;
  const files: WalkedFile[] = [];
  const queue: PendingDir[] = [
    { dir: root, rel: "", rules: await ancestorRules(root, options.worktree) },
  ];
  let complete = true;
  const readOne = async ({ dir, rel, rules }: PendingDir): Promise<void> => {
    const entries = await readEntries(dir);
    const own = await readDirRules(dir, entries);
    const active = own ? [...rules, own] : rules;
    for (const entry of entries) {
      if (entry.isSymlink || (!entry.isFile && !entry.isDirectory)) continue;
      if (entry.isDirectory && SKIPPED_DIRS.includes(entry.name)) continue;
      const path = join(dir, entry.name);
      if (isIgnored(active, path, entry.isDirectory)) continue;
      const entryRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory) queue.push({ dir: path, rel: entryRel, rules: active });
      else files.push({ path, rel: entryRel });
    }
  };
  await new Promise<void>((resolve, reject) => {
    let reading = 0;
    const pump = () => {
      if (signal.aborted) return reject(signal.reason);
      if (performance.now() > deadline && queue.length > 0) {
        complete = false;
        queue.length = 0;
      }
      while (reading < WALK_CONCURRENCY && queue.length > 0) {
        reading++;
        readOne(queue.pop()!).then(() => {
          reading--;
          pump();
        }, reject);
      }
      if (reading === 0) resolve();
    };
    pump();
  });
  return { files, complete };
}

/** A directory waiting to be read, with the rules that apply to its entries. */
interface PendingDir {
  dir: string;
  rel: string;
  rules: DirRules[];
}

/**
 * Whether `path` is excluded: the deepest directory with a rule about it decides, so a nested
 * `.gitignore` can re-include what a parent's excludes.
 */
function isIgnored(rules: readonly DirRules[], path: string, isDir: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { dir, matcher } = rules[i]!;
    let rel = relative(dir, path);
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
async function ancestorRules(root: string, worktree: string): Promise<DirRules[]> {
  const rel = relative(worktree, root);
  if (rel === "" || rel.startsWith("..") || rel.startsWith(sep)) return [];
  const rules: DirRules[] = [];
  let dir = worktree;
  for (const part of rel.split(sep).slice(0, -1)) {
    const own = await readDirRules(dir, null);
    if (own) rules.push(own);
    dir = join(dir, part);
  }
  const own = await readDirRules(dir, null);
  if (own) rules.push(own);
  return isIgnored(rules, root, true) ? [] : rules;
}

async function readEntries(dir: string): Promise<Deno.DirEntry[]> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
  } catch (error) {
    // A directory removed or locked mid-walk is skipped, as find and ripgrep skip it.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return [];
    }
    throw error;
  }
  return entries;
}

/** The ignore rules `dir` holds; `entries` (when known) saves reading files that are absent. */
async function readDirRules(
  dir: string,
  entries: readonly Deno.DirEntry[] | null,
): Promise<DirRules | null> {
  const has = (name: string) => entries === null || entries.some((e) => e.name === name);
  const sources = [
    ...(has(".git") ? [join(dir, ".git", "info", "exclude")] : []),
    ...IGNORE_FILES.filter(has).map((name) => join(dir, name)),
  ];
  let matcher: Ignore | null = null;
  for (const source of sources) {
    let text: string;
    try {
      text = await Deno.readTextFile(source);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        continue;
      }
      if (
        error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.IsADirectory
      ) {
        continue;
      }
      throw error;
    }
    matcher = (matcher ?? ignore()).add(text);
  }
  return matcher ? { dir, matcher } : null;
}
