/**
 * Path resolution for tools: `~`, relative paths, `..` and symlinks are resolved before a
 * path is judged (DESIGN.md §3), so a link inside the worktree cannot smuggle a write outside.
 * @module
 */
import { dirname, isAbsolute, join, resolve, rootOf } from "../fs/path.ts";

/** Symlinks followed in one resolution before it gives up, as the kernel's ELOOP limit does. */
const MAX_SYMLINKS = 40;

/**
 * Resolves `path` as the tools see it: `~` is the home directory, relative paths are under the
 * worktree, and every symlink is followed, a dangling one included, so the result is where a
 * write would land.
 */
// deno-lint-ignore require-await -- async keeps the callers' contract: failures reject.
export async function resolveToolPath(path: string, worktree: string): Promise<string> {
  return resolveSymlinks(absoluteToolPath(path, worktree));
}

/** `path` made absolute and normalised (`~`, relative, `..`) without touching the disk. */
export function absoluteToolPath(path: string, worktree: string): string {
  const expanded = expandHome(path);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(worktree, expanded);
}

function expandHome(path: string): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  const home = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted"
    ? Deno.env.get("HOME")
    : undefined;
  if (!home) throw new Error(`Cannot resolve "${path}": HOME is not set: give an absolute path`);
  return join(home, path.slice(1));
}

/**
 * Follows every symlink in `absolute`. `realPath` resolves the deepest ancestor that exists;
 * the rest is walked one component at a time with `lstat`, so a dangling link (last or in the
 * middle) is followed to where it points instead of being taken for a new file in the worktree.
 * The calls are synchronous: each is a few microseconds of metadata, where Deno's async calls
 * cost about 70 µs apiece in a hop to a worker thread, and every tool call resolves its path
 * several times (docs/decisions.md).
 */
function resolveSymlinks(absolute: string): string {
  const rest: string[] = [];
  let base = absolute;
  while (true) {
    try {
      return walkLinks(Deno.realPathSync(base), rest.reverse(), absolute);
    } catch (error) {
      // A loop is walked too, so it ends in this module's message rather than the OS's.
      if (!isMissing(error) && !(error instanceof Deno.errors.FilesystemLoop)) throw error;
    }
    const parent = dirname(base);
    if (parent === base) return walkLinks(base, rest.reverse(), absolute);
    rest.push(base.slice(parent.length).replace(/^[/\\]/, ""));
    base = parent;
  }
}

/** Appends `pending` components to the real folder `start`, following each symlink met. */
function walkLinks(start: string, pending: string[], absolute: string): string {
  let current = start;
  let followed = 0;
  let missing = false;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      // A link's target may climb out of a missing folder into one that exists (and has links).
      current = dirname(current);
      missing = false;
      continue;
    }
    const next = join(current, part);
    // Below a missing folder nothing exists, so nothing more can be a link.
    const info = missing ? null : lstatOrNull(next);
    if (info === null) missing = true;
    if (!info?.isSymlink) {
      current = next;
      continue;
    }
    if (++followed > MAX_SYMLINKS) {
      throw new RangeError(
        `Cannot resolve "${absolute}": more than ${MAX_SYMLINKS} symlinks (a loop?): ` +
          `fix the links or give another path`,
      );
    }
    const target = Deno.readLinkSync(next);
    pending.unshift(...components(target));
    current = isAbsolute(target) ? rootOf(target) : current;
  }
  return current;
}

function components(path: string): string[] {
  return path.split(/[/\\]/);
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** NotADirectory: a file stands where the path wants a folder; NotCapable: not ours to see. */
function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory ||
    error instanceof Deno.errors.NotCapable;
}

export { isInside } from "../fs/is_inside.ts";
