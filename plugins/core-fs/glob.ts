/**
 * glob: files whose path matches a pattern, newest first, honouring ignore files.
 * @module
 */
import {
  isAbsolute,
  relative,
  type Static,
  type ToolContext,
  type ToolHandler,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import { isMissing } from "./_path_errors.ts";
import { displayPath } from "./_display.ts";
import { newestFirst } from "./_newest_first.ts";
import { compileGlob } from "./_match_glob.ts";
import { walkFiles } from "./_walk.ts";
import { count, plural, type SearchBudget, searchBudget, stoppedClause } from "./_budget_note.ts";
import DESCRIPTION from "./glob.md" with { type: "text" };

/** Paths listed before the rest are summarised: enough to choose from, short in context. */
const MAX_RESULTS = 200;

const parameters = Type.Object({
  pattern: Type.String({
    description: 'Glob such as "**/*.ts" or "src/**/test_*.py"; without "/" it matches names ' +
      "at any depth",
  }),
  path: Type.Optional(Type.String({
    default: ".",
    description: "Folder to search, relative to the worktree",
  })),
});

type GlobArgs = Static<typeof parameters>;

/** glob's registration: a search gated by `tool_permission.read`. */
export const globSpec = {
  name: "glob",
  description: DESCRIPTION,
  short: "Find files by glob pattern, newest first",
  parameters,
  category: "search",
  permission: "read",
  deno: { read: true },
  pathArg: "path",
  keyArg: "pattern",
  glyph: "*",
  verb: "Glob",
  paramAliases: { glob: "pattern", dir: "path", directory: "path" },
  note: (result: string) => result.startsWith("(no files match ") && !result.includes("\n"),
} satisfies ToolSpec<typeof parameters>;

/** Options for {@link createGlob}; tests shorten the budget. */
export interface GlobOptions {
  /** Milliseconds to search before returning what was found; overrides `search.time_budget`. */
  budgetMs?: number;
  /** Matching files after which the walk stops; overrides `search.max_results`. */
  maxResults?: number;
}

/** A glob handler with the given budgets. */
export function createGlob(options: GlobOptions = {}): ToolHandler<GlobArgs> {
  return async (args, ctx) => await findFiles(args, ctx, searchBudget(ctx, options));
}

/** Lists files matching the pattern, most recently modified first. */
export const globFiles: ToolHandler<GlobArgs> = createGlob();

async function findFiles(
  args: GlobArgs,
  ctx: ToolContext,
  budget: SearchBudget,
): Promise<string> {
  const root = await ctx.resolvePath(args.path ?? ".", "read");
  const shownRoot = displayPath(root, ctx.worktree);
  await assertDirectory(root, shownRoot);
  const isMatch = await compileGlob(relativePattern(args.pattern, root));
  const walk = await walkFiles({
    root,
    worktree: ctx.worktree,
    signal: ctx.signal,
    deadline: performance.now() + budget.timeMs,
    filter: (f) => isMatch(f.rel),
    maxFiles: budget.maxResults,
  });
  const matches = await newestFirst(walk.files, ctx.signal);
  const where = shownRoot === "." ? "" : ` in ${shownRoot}`;
  // The walk knows exactly what it read and which folders it had still to read.
  const partial = walk.stoppedBy
    ? `${stoppedClause(walk.stoppedBy, budget, "matching files")}: ` +
      `${count(walk.seen)} files looked at, ${plural(walk.dirsUnread, "folder")} not yet ` +
      `read; narrow with path=`
    : "";
  if (matches.length === 0) {
    return partial === ""
      ? `(no files match "${args.pattern}"${where})`
      : `(no files match "${args.pattern}"${where} in the part searched: ${partial})`;
  }
  const lines = matches.slice(0, MAX_RESULTS).map((f) => displayPath(f.path, ctx.worktree));
  if (matches.length > MAX_RESULTS) {
    lines.push(
      `... (showing ${MAX_RESULTS} of ${matches.length} files, most recently modified first: ` +
        `narrow the pattern or the path)`,
    );
  }
  if (partial !== "") lines.push(`(partial results: ${partial})`);
  return lines.join("\n");
}

/** Absolute patterns inside the folder searched become relative to it. */
function relativePattern(pattern: string, root: string): string {
  if (!isAbsolute(pattern)) return pattern;
  const rel = relative(root, pattern);
  if (rel.startsWith("..")) {
    throw new RangeError(
      `Cannot glob "${pattern}": it is outside the folder searched: ` +
        `set path to the folder and give pattern relative to it`,
    );
  }
  return rel;
}

async function assertDirectory(dir: string, shown: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new Deno.errors.NotFound(
      `Cannot glob in "${shown}": no such folder: check the path with list_dir`,
    );
  }
  if (!info.isDirectory) {
    throw new TypeError(
      `Cannot glob in "${shown}": it is a file: set path to a folder, or use file_read`,
    );
  }
}
