/**
 * list_dir: a directory's entries, directories first, to a chosen depth, capped by
 * `list_dir_max_entries`.
 * @module
 */
import { join, type Static, type ToolContext, type ToolSpec, Type } from "../../src/plugins/api.ts";
import { isMissing, rethrowDenied } from "./_path_errors.ts";
import { displayPath, formatBytes } from "./_display.ts";
import { pauser, SKIPPED_DIRS } from "./_walk.ts";
import DESCRIPTION from "./list_dir.md" with { type: "text" };

/** Entries counted before counting stops, so a listing of a huge tree stays quick. */
const MAX_COUNTED_ENTRIES = 100_000;

/** The whole result for a directory with nothing to show. */
const EMPTY_DIRECTORY = "(empty directory)";

const parameters = Type.Object({
  path: Type.Optional(Type.String({
    default: ".",
    description: "Directory to list, relative to the worktree",
  })),
  depth: Type.Optional(Type.Integer({
    minimum: 1,
    default: 1,
    description: "Levels to show: 1 is the directory's own entries, 2 adds its subdirectories'",
  })),
});

type ListArgs = Static<typeof parameters>;

/** list_dir's registration: a listing gated by `tool_permission.list`. */
export const listDirSpec = {
  name: "list_dir",
  description: DESCRIPTION,
  short: "List a directory, directories first (depth for a tree)",
  parameters,
  category: "read",
  permission: "list",
  deno: { read: true },
  pathArg: "path",
  keyArg: "path",
  glyph: "*",
  verb: "List",
  aliases: ["ls"],
  paramAliases: { dir: "path", directory: "path", max_depth: "depth" },
  note: (result: string) => result === EMPTY_DIRECTORY,
} satisfies ToolSpec<typeof parameters>;

/** One listed entry; `children` is set for directories read within the depth. */
interface Entry {
  name: string;
  path: string;
  isDir: boolean;
  isSymlink: boolean;
  level: number;
  children?: Entry[];
}

/** Lists a directory tree to `depth` levels, directories first. */
export async function listDir(args: ListArgs, ctx: ToolContext): Promise<string> {
  const dir = await ctx.resolvePath(args.path ?? ".", "read");
  const shown = displayPath(dir, ctx.worktree);
  assertDirectory(dir, shown);
  const depth = args.depth ?? 1;
  const byName = (a: Entry, b: Entry) =>
    Number(b.isDir) - Number(a.isDir) || compareText(a.name.toLowerCase(), b.name.toLowerCase()) ||
    compareText(a.name, b.name);

  // Breadth first, so a capped listing keeps every top-level entry before any nested one.
  let top: Entry[];
  try {
    top = readEntries(dir, 1);
  } catch (error) {
    rethrowDenied(error, `Cannot list "${shown}"`);
  }
  top.sort(byName);
  const inOrder: Entry[] = [...top];
  let isCountComplete = true;
  const pause = pauser(ctx.signal);
  for (let level = 1, frontier = top; level < depth && frontier.length > 0; level++) {
    const next: Entry[] = [];
    for (const entry of frontier) {
      await pause();
      if (!entry.isDir) continue;
      if (inOrder.length >= MAX_COUNTED_ENTRIES) {
        isCountComplete = false;
        break;
      }
      entry.children = readEntries(entry.path, level + 1).sort(byName);
      next.push(...entry.children);
      inOrder.push(...entry.children);
    }
    frontier = next;
  }
  if (inOrder.length === 0) return EMPTY_DIRECTORY;

  const max = ctx.config.get("list_dir_max_entries");
  const kept = new Set(max > 0 ? inOrder.slice(0, max) : inOrder);
  const lines: string[] = [];
  const render = (entries: readonly Entry[]) => {
    for (const entry of entries) {
      if (!kept.has(entry)) continue;
      lines.push("  ".repeat(entry.level - 1) + describeEntry(entry));
      if (entry.children) render(entry.children);
    }
  };
  render(top);
  const dirs = inOrder.filter((e) => e.isDir).length;
  const counts = `${plural(dirs, "directory", "directories")}, ${
    plural(inOrder.length - dirs, "file", "files")
  }`;
  const header = isCountComplete
    ? `# ${shown} - ${counts}`
    : `# ${shown} - ${counts} so far (counting stopped at ${MAX_COUNTED_ENTRIES} entries)`;
  if (kept.size < inOrder.length) {
    const total = isCountComplete ? `${inOrder.length}` : `more than ${inOrder.length}`;
    lines.push(`... (showing first ${kept.size} of ${total} entries)`);
  }
  return [header, ...lines].join("\n");
}

/*
 * The file system calls below are synchronous: each takes microseconds, where an async call is a
 * hand-off to a worker thread and back (70 µs on a quiet machine, a millisecond or two on a busy
 * one), paid per entry. Long listings still let signals in through `pause` between folders.
 */

function assertDirectory(dir: string, shown: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new Deno.errors.NotFound(
      `Cannot list "${shown}": no such directory: list its parent to check the name`,
    );
  }
  if (!info.isDirectory) {
    throw new TypeError(`Cannot list "${shown}": it is a file: use file_read to read it`);
  }
}

function readEntries(dir: string, level: number): Entry[] {
  const entries: Entry[] = [];
  try {
    for (const { name, isDirectory, isSymlink } of Deno.readDirSync(dir)) {
      if (isDirectory && SKIPPED_DIRS.includes(name)) continue;
      entries.push({ name, path: join(dir, name), isDir: isDirectory, isSymlink, level });
    }
  } catch (error) {
    // A subdirectory we may not read is listed without its contents rather than failing all.
    if (level > 1 && error instanceof Deno.errors.PermissionDenied) return [];
    throw error;
  }
  return entries;
}

/** `name/`, `name  1.2 KB`, or `name -> target` for a symlink. */
function describeEntry(entry: Entry): string {
  if (entry.isDir) return `${entry.name}/`;
  if (entry.isSymlink) return `${entry.name} -> ${Deno.readLinkSync(entry.path)}`;
  try {
    return `${entry.name}  ${formatBytes(Deno.statSync(entry.path).size)}`;
  } catch (error) {
    // Removed between the listing and now: still worth naming.
    if (error instanceof Deno.errors.NotFound) return entry.name;
    throw error;
  }
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
