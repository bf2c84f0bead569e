/**
 * Every `.git` and `.replio` below the worktree's root (nested repositories, submodules, linked
 * worktrees: a `.git` file as well as a folder), and every folder that is itself a repository's
 * git folder (a bare repository, a `--separate-git-dir`), found before each sandboxed command so
 * that the sandbox binds them read-only. Git runs a repository's hooks and `core.fsmonitor` when
 * someone runs `git status` in that folder later, outside the sandbox.
 *
 * The whole tree is looked through (no folder is skipped: a repository inside `node_modules` or
 * an ignored `vendor/` is still one), at one `lstat` a folder after the first pass
 * ({@link TreeScan}). Past {@link MAX_WORKTREE_FOLDERS} folders the command is refused rather
 * than run with repositories nobody looked for.
 * @module
 */
import { join } from "../fs/path.ts";
import { PROTECTED_DIRS } from "./stand_ins.ts";
import { SandboxRefused } from "./sandbox_refused.ts";
import { ScanLimitError, TreeScan } from "./tree_scan.ts";

/**
 * Folders looked through before each command. At about 6 µs an `lstat` on a loaded machine,
 * 50,000 folders (some 600,000 files) cost about 0.3 s a command.
 */
export const MAX_WORKTREE_FOLDERS = 50_000;

const scans = new Map<string, TreeScan>();

/** The paths below `worktree` to bind read-only (absolute, sorted); throws past the limit. */
export function protectedBelow(worktree: string, maxFolders = MAX_WORKTREE_FOLDERS): string[] {
  const key = `${maxFolders}\0${worktree}`;
  let scan = scans.get(key);
  if (!scan) {
    scan = new TreeScan({
      root: worktree,
      maxDepth: Infinity,
      maxFolders,
      classify: classifyFolder,
      // A folder the user may not list could hold a repository: read-only, to be safe.
      unreadable: (path) => [path],
    });
    scans.set(key, scan);
  }
  try {
    return scan.refresh().sort();
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      // Not Deno's NotCapable: the spawner reads that as a missing --allow-run.
      throw new SandboxRefused(
        `Cannot run commands in the sandbox: replio may not read "${worktree}" to look for ` +
          `nested .git folders: restart replio with --allow-read=${worktree}`,
      );
    }
    if (!(error instanceof ScanLimitError)) throw error;
    throw new SandboxRefused(
      `Cannot run commands in the sandbox: "${worktree}" holds more than ${maxFolders} ` +
        `folders, too many to look through for nested .git folders before every command: ` +
        `start replio in a smaller folder, or set sandbox.mode to off`,
    );
  }
}

/** How many folders the last look at `worktree` went through, and how many it read again. */
export function lastScanOf(worktree: string): { folders: number; read: number } | undefined {
  return scans.get(`${MAX_WORKTREE_FOLDERS}\0${worktree}`)?.lastPass;
}

const GUARDED = new Set<string>(PROTECTED_DIRS);

function classifyFolder(path: string, depth: number, entries: Deno.DirEntry[]) {
  const names = new Set(entries.map((entry) => entry.name));
  // A git folder under another name: HEAD plus objects and refs, or a linked worktree's commondir.
  if (
    depth > 0 && names.has("HEAD") &&
    (names.has("commondir") || names.has("objects") && names.has("refs"))
  ) {
    return { enter: [], found: [path] };
  }
  const found: string[] = [];
  const enter: string[] = [];
  for (const entry of entries) {
    if (GUARDED.has(entry.name)) {
      // The root's own are the stand-ins' business (stand_ins.ts).
      if (depth > 0) found.push(join(path, entry.name));
    } else if (entry.isDirectory) {
      enter.push(entry.name);
    }
  }
  return { enter, found };
}
