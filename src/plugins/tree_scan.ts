/**
 * A folder tree looked through again before every sandboxed command, at the cost of one `lstat`
 * a folder: each folder's listing is kept with the folder's identity and times, and read again
 * only when they changed. Creating, removing or renaming an entry changes its folder's
 * modification time, so a `.git` made anywhere since the last look is found.
 * @module
 */
import { join } from "../fs/path.ts";

/** What one folder's entries yield: subfolders to look into, and paths found. */
export interface FolderYield {
  /** Names of subfolders to look into (never followed symbolic links). */
  enter: string[];
  /** Absolute paths this folder contributes to the result. */
  found: string[];
}

/** How a {@link TreeScan} walks. */
export interface TreeScanOptions {
  root: string;
  /** Depth of the deepest folder read (the root is 0). */
  maxDepth: number;
  /** Most folders looked at in one pass; past it {@link TreeScan.refresh} throws. */
  maxFolders: number;
  /** What a folder's entries yield; `depth` is the folder's own. */
  classify(path: string, depth: number, entries: Deno.DirEntry[]): FolderYield;
  /** What a folder that cannot be listed (permission denied) yields. */
  unreadable(path: string): string[];
  /** How recent a change makes a listing untrustworthy; default {@link RACY_MS}. */
  racyMs?: number;
}

/** A pass found more folders than {@link TreeScanOptions.maxFolders} allows. */
export class ScanLimitError extends RangeError {
  override name = "ScanLimitError";
}

interface Folder {
  ino: number | null;
  mtimeMs: number;
  ctimeMs: number;
  /** Changed so recently that a change in the same clock tick would not show: read again. */
  isRacy: boolean;
  yields: FolderYield;
}

/**
 * A change in the same clock tick as the listing leaves the folder's time as it was (the kernel's
 * file clock is coarse, and Deno gives milliseconds). A folder changed this close to when it was
 * read is read again next time, like git's "racy" index entries.
 */
export const RACY_MS = 2_000;

/** A folder tree whose listings are kept between passes. */
export class TreeScan {
  readonly #options: TreeScanOptions;
  #folders = new Map<string, Folder>();
  /** Folders looked at and read in the last pass (for the benchmark and tests). */
  lastPass = { folders: 0, read: 0 };

  constructor(options: TreeScanOptions) {
    this.#options = options;
  }

  /** Every path the tree yields now; throws {@link ScanLimitError} past `maxFolders`. */
  refresh(): string[] {
    const { root, maxDepth, maxFolders } = this.#options;
    const next = new Map<string, Folder>();
    const found: string[] = [];
    const pass = { folders: 0, read: 0 };
    // Depth-first with an explicit stack: a deep tree must not exhaust the call stack.
    const stack: [string, number][] = [[root, 0]];
    while (stack.length) {
      const [path, depth] = stack.pop()!;
      if (++pass.folders > maxFolders) {
        throw new ScanLimitError(`more than ${maxFolders} folders under ${root}`);
      }
      const info = lstatOrNull(path);
      if (!info?.isDirectory) continue;
      let folder = this.#folders.get(path);
      if (!folder || folder.isRacy || changed(folder, info)) {
        folder = this.#read(path, depth, info);
        pass.read++;
      }
      next.set(path, folder);
      found.push(...folder.yields.found);
      if (depth >= maxDepth) continue;
      for (const name of folder.yields.enter) stack.push([join(path, name), depth + 1]);
    }
    this.#folders = next;
    this.lastPass = pass;
    return found;
  }

  #read(path: string, depth: number, info: Deno.FileInfo): Folder {
    const readAt = Date.now();
    let yields: FolderYield;
    try {
      yields = this.#options.classify(path, depth, [...Deno.readDirSync(path)]);
    } catch (error) {
      // Removed since the lstat: nothing in it to find.
      if (error instanceof Deno.errors.NotFound) yields = { enter: [], found: [] };
      else if (error instanceof Deno.errors.PermissionDenied) {
        yields = { enter: [], found: this.#options.unreadable(path) };
      } else throw error;
    }
    const mtimeMs = info.mtime?.getTime() ?? 0;
    const ctimeMs = info.ctime?.getTime() ?? 0;
    return {
      ino: info.ino,
      mtimeMs,
      ctimeMs,
      isRacy: Math.max(mtimeMs, ctimeMs) >= readAt - (this.#options.racyMs ?? RACY_MS),
      yields,
    };
  }
}

function changed(folder: Folder, info: Deno.FileInfo): boolean {
  return folder.ino !== info.ino || folder.mtimeMs !== (info.mtime?.getTime() ?? 0) ||
    folder.ctimeMs !== (info.ctime?.getTime() ?? 0);
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}
