/**
 * glob: files whose path matches a pattern, newest first, honouring ignore files. It lists them
 * with ripgrep when `rg` is on PATH and may be run, and walks the tree itself otherwise; both
 * give the same text.
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
import { holdsAtMost, walkFiles } from "./_walk.ts";
import { SMALL_TREE_FILES } from "./_small_tree.ts";
import type { GlobOutcome, GlobRequest } from "./_glob_types.ts";
import { type SearchEngine, searchWith } from "./_engine_choice.ts";
import { count, plural, type SearchBudget, searchBudget, stoppedClause } from "./_budget_note.ts";
import DESCRIPTION from "./glob.md" with { type: "text" };

/** Paths listed before the rest are summarised: enough to choose from, short in context. */
const MAX_RESULTS = 200;

/** Which engine glob uses (_engine_choice.ts). */
export type GlobEngine = SearchEngine;

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
  // ripgrep runs when `rg` may be run; the built-in walk serves otherwise.
  deno: { read: true },
  pathArg: "path",
  keyArg: "pattern",
  glyph: "*",
  verb: "Glob",
  paramAliases: { glob: "pattern", dir: "path", directory: "path" },
  note: (result: string) => result.startsWith("(no files match ") && !result.includes("\n"),
} satisfies ToolSpec<typeof parameters>;

/** Options for {@link createGlob}; tests and benches pick the engine and shorten the budget. */
export interface GlobOptions {
  /** Default `auto`. */
  engine?: GlobEngine;
  /** Milliseconds to search before returning what was found; overrides `search.time_budget`. */
  budgetMs?: number;
  /** Matching files after which the walk stops; overrides `search.max_results`. */
  maxResults?: number;
}

/** A glob handler with the given budgets. */
export function createGlob(options: GlobOptions = {}): ToolHandler<GlobArgs> {
  return async (args, ctx) =>
    await findFiles(args, ctx, options.engine ?? "auto", searchBudget(ctx, options));
}

/** Lists files matching the pattern, most recently modified first. */
export const globFiles: ToolHandler<GlobArgs> = createGlob();

async function findFiles(
  args: GlobArgs,
  ctx: ToolContext,
  engine: GlobEngine,
  budget: SearchBudget,
): Promise<string> {
  const root = await ctx.resolvePath(args.path ?? ".", "read");
  const shownRoot = displayPath(root, ctx.worktree);
  assertDirectory(root, shownRoot);
  const pattern = relativePattern(args.pattern, root);
  const request: GlobRequest = {
    root,
    worktree: ctx.worktree,
    pattern,
    isMatch: await compileGlob(pattern),
    signal: ctx.signal,
    deadline: performance.now() + budget.timeMs,
    maxResults: budget.maxResults,
  };
  const outcome = await searchWith(engine, {
    small: async () => holdsAtMost(root, SMALL_TREE_FILES) ? await walkMatching(request) : null,
    // The engine loads on the first search, not with every start (docs/performance.md).
    ripgrep: async () => (await import("./_glob_ripgrep.ts")).globRipgrep(request),
    builtin: () => walkMatching(request),
    missing: () =>
      new Error(
        `Cannot glob with ripgrep: "rg" is not on PATH or may not be run: install ripgrep, ` +
          `or use the engine "auto" or "builtin"`,
      ),
  });
  const matches = await newestFirst(outcome.files, ctx.signal);
  const where = shownRoot === "." ? "" : ` in ${shownRoot}`;
  const partial = outcome.stoppedBy
    ? `${stoppedClause(outcome.stoppedBy, budget, "matching files")}: ${outcome.coverage}; ` +
      "narrow with path="
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

/** The built-in engine: its walk knows exactly what it read and what it had still to read. */
async function walkMatching(request: GlobRequest): Promise<GlobOutcome> {
  const walk = await walkFiles({
    root: request.root,
    worktree: request.worktree,
    signal: request.signal,
    deadline: request.deadline,
    filter: (f) => request.isMatch(f.rel),
    maxFiles: request.maxResults,
  });
  return {
    files: walk.files,
    stoppedBy: walk.stoppedBy,
    coverage: `${count(walk.seen)} files looked at, ${plural(walk.dirsUnread, "folder")} not ` +
      "yet read",
  };
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

/** Synchronous: microseconds, where an async stat is a hand-off to another thread and back. */
function assertDirectory(dir: string, shown: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
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
