/**
 * grep: regex search over file contents, newest files first. It runs ripgrep when `rg` is on
 * PATH and a built-in engine otherwise; both give the same text. `REPLIO_GREP_ENGINE=builtin`
 * (or `rg`, `auto`) in the environment picks the engine, for tests and comparisons.
 * @module
 */
import {
  type Static,
  type ToolContext,
  type ToolHandler,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import { isMissing } from "./_path_errors.ts";
import { displayPath } from "./_display.ts";
import { newestFirst } from "./_newest_first.ts";
import { dropIdentityEscapes } from "./_pattern.ts";
import type { FileMatches, SearchRequest } from "./_grep_types.ts";
import { type SearchEngine, searchWith } from "./_engine_choice.ts";
import { grepCoverage, type SearchBudget, searchBudget, stoppedClause } from "./_budget_note.ts";
import DESCRIPTION from "./grep.md" with { type: "text" };

/** Matched lines shown before the rest are counted: enough to act on, short in context. */
const MAX_MATCHES = 200;
/** Characters of a result line shown; a match deep in a long line is shown with what leads to it. */
const MAX_LINE_CHARS = 300;
/** Characters shown before a match in a cut line. */
const LEAD_CHARS = 80;
/** Characters of the result cap kept for the closing lines. */
const FRAME_CHARS = 300;
/** The environment variable that picks the engine: `builtin`, `rg` or `auto`. */
const ENGINE_ENV = "REPLIO_GREP_ENGINE";

/** Which engine grep uses (_engine_choice.ts). */
export type GrepEngine = SearchEngine;

const parameters = Type.Object({
  pattern: Type.String({
    description: "Regular expression (JavaScript syntax) to find within lines",
  }),
  path: Type.Optional(Type.String({
    default: ".",
    description: "File or folder to search, relative to the worktree",
  })),
  glob: Type.Optional(Type.String({
    description: 'Only search files matching this glob, e.g. "*.ts" or "src/**/*.py"',
  })),
  ignore_case: Type.Optional(Type.Boolean({
    default: false,
    description: "Match letters in either case",
  })),
  context: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 20,
    default: 0,
    description: "Lines to show before and after each match",
  })),
});

type GrepArgs = Static<typeof parameters>;

/** grep's registration: a search gated by `tool_permission.read`. */
export const grepSpec = {
  name: "grep",
  description: DESCRIPTION,
  short: "Search file contents by regex: path:line: text",
  parameters,
  category: "search",
  permission: "read",
  // ripgrep runs when `rg` may be run; the built-in engine serves otherwise.
  deno: { read: true, env: [ENGINE_ENV] },
  pathArg: "path",
  keyArg: "pattern",
  glyph: "*",
  verb: "Grep",
  aliases: ["find"],
  paramAliases: {
    query: "pattern",
    regex: "pattern",
    include: "glob",
    "-i": "ignore_case",
    case_insensitive: "ignore_case",
    "-C": "context",
  },
  note: (result: string) => result.startsWith("(no matches for ") && !result.includes("\n"),
} satisfies ToolSpec<typeof parameters>;

/** Options for {@link createGrep}; tests pick the engine and shorten the budget. */
export interface GrepOptions {
  /** Overrides `REPLIO_GREP_ENGINE`. */
  engine?: GrepEngine;
  /** Milliseconds to search before returning what was found; overrides `search.time_budget`. */
  budgetMs?: number;
  /** Matched lines after which the search stops; overrides `search.max_results`. */
  maxResults?: number;
}

/** A grep handler with the given engine and budgets. */
export function createGrep(options: GrepOptions = {}): ToolHandler<GrepArgs> {
  return async (args, ctx) =>
    await grep(args, ctx, options.engine ?? engineFromEnv(), searchBudget(ctx, options));
}

/** Searches file contents; the engine comes from `REPLIO_GREP_ENGINE`, else `auto`. */
export const grepFiles: ToolHandler<GrepArgs> = createGrep();

async function grep(
  args: GrepArgs,
  ctx: ToolContext,
  engine: GrepEngine,
  budget: SearchBudget,
): Promise<string> {
  const target = await ctx.resolvePath(args.path ?? ".", "read");
  const shownTarget = displayPath(target, ctx.worktree);
  const request: SearchRequest = {
    target,
    isFile: isFile(target, shownTarget),
    worktree: ctx.worktree,
    regex: compilePattern(args.pattern, args.ignore_case ?? false),
    ignoreCase: args.ignore_case ?? false,
    glob: args.glob,
    context: args.context ?? 0,
    signal: ctx.signal,
    deadline: performance.now() + budget.timeMs,
    maxResults: budget.maxResults,
  };
  // The engines load on the first search, not with every start (docs/performance.md).
  const outcome = await searchWith(engine, {
    small: async () => (await import("./_grep_builtin.ts")).searchIfSmall(request),
    ripgrep: async () => (await import("./_grep_ripgrep.ts")).searchRipgrep(request),
    builtin: async () => (await import("./_grep_builtin.ts")).searchBuiltin(request),
    missing: () =>
      new Error(
        `Cannot search with ripgrep: "rg" is not on PATH or may not be run: install ripgrep, ` +
          `or unset ${ENGINE_ENV}`,
      ),
  });
  const files = await newestFirst(outcome.files, ctx.signal);
  const partial = outcome.coverage
    ? `${stoppedClause(outcome.coverage.stoppedBy, budget, "matching lines")}: ` +
      `${grepCoverage(outcome.coverage, files.length)}; narrow with path= or glob=`
    : "";
  if (files.length === 0) {
    const where = shownTarget === "." ? "" : ` in ${shownTarget}`;
    return partial === ""
      ? `(no matches for "${args.pattern}"${where})`
      : `(no matches for "${args.pattern}"${where} in the part searched: ${partial})`;
  }
  const maxChars = ctx.config.get("tool_max_result_chars");
  const lines = formatMatches(files, request, {
    worktree: ctx.worktree,
    budget: maxChars === 0 ? Infinity : maxChars - FRAME_CHARS,
  });
  if (partial !== "") lines.push(`(partial results: ${partial})`);
  return lines.join("\n");
}

function engineFromEnv(): GrepEngine {
  const readable = Deno.permissions.querySync({ name: "env", variable: ENGINE_ENV }).state;
  const value = readable === "granted" ? Deno.env.get(ENGINE_ENV) ?? "auto" : "auto";
  if (value === "auto" || value === "rg" || value === "builtin") return value;
  throw new TypeError(
    `Cannot pick a grep engine: ${ENGINE_ENV} is "${value}": set it to builtin, rg or auto`,
  );
}

/**
 * Compiles the pattern in Unicode mode (for `\p{…}` classes, and so ripgrep can share it),
 * first as given, then without the needless escapes models write (`\-`, `\:`); legacy mode
 * is the last resort.
 */
function compilePattern(pattern: string, ignoreCase: boolean): RegExp {
  const flags = ignoreCase ? "i" : "";
  for (const source of [pattern, dropIdentityEscapes(pattern)]) {
    try {
      return new RegExp(source, `u${flags}`);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^.*: /, "") : String(error);
    throw new SyntaxError(
      `Cannot search for "${pattern}": it is not a valid regular expression (${detail}): ` +
        "escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally, " +
        "or fix the syntax",
    );
  }
}

/** Synchronous: microseconds, where an async stat is a hand-off to another thread and back. */
function isFile(target: string, shown: string): boolean {
  try {
    return Deno.statSync(target).isFile;
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new Deno.errors.NotFound(
      `Cannot search "${shown}": no such file or folder: check the path with list_dir`,
    );
  }
}

/**
 * `path:line: text` for matches and `path-line- text` for context, `--` between groups, cut at
 * {@link MAX_MATCHES} matches or the character budget with a line saying what was left out.
 */
function formatMatches(
  files: FileMatches[],
  request: SearchRequest,
  options: { worktree: string; budget: number },
): string[] {
  const { context } = request;
  const total = files.reduce((n, f) => n + f.matchCount, 0);
  const lines: string[] = [];
  let shown = 0;
  let used = 0;
  let isCut = false;
  for (const file of files) {
    const taken = file.matched.slice(0, MAX_MATCHES - shown);
    if (taken.length === 0 || isCut) break;
    const path = displayPath(file.path, options.worktree);
    const matched = new Set(file.matched);
    const wanted = new Set<number>();
    for (const m of taken) {
      for (let n = m - context; n <= m + context; n++) if (file.lines.has(n)) wanted.add(n);
    }
    let previous = -1;
    for (const n of [...wanted].sort((a, b) => a - b)) {
      const mark = matched.has(n) ? ":" : "-";
      const shownLine = showLine(file.lines.get(n)!, n, request.regex);
      const text = `${path}${mark}${n}${mark}${shownLine === "" ? "" : " "}${shownLine}`;
      if (shown > 0 && used + text.length + 1 > options.budget) {
        isCut = true;
        break;
      }
      const isNewGroup = previous === -1 ? lines.length > 0 : n > previous + 1;
      if (context > 0 && isNewGroup) lines.push("--");
      lines.push(text);
      used += text.length + 1;
      if (mark === ":") shown++;
      previous = n;
    }
  }
  if (shown < total) {
    lines.push(
      `... (showing ${shown} of ${total} matches in ${files.length} ` +
        `${files.length === 1 ? "file" : "files"}; ` +
        `${total - shown} left out: narrow the pattern, the path or the glob)`,
    );
  }
  return lines;
}

/** A line as shown: no `\r` or byte-order mark, and a long line cut around its first match. */
function showLine(text: string, number: number, regex: RegExp): string {
  let line = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (number === 1 && line.startsWith("\uFEFF")) line = line.slice(1);
  if (line.length <= MAX_LINE_CHARS) return line;
  const start = Math.max(0, (regex.exec(line)?.index ?? 0) - LEAD_CHARS);
  const end = start + MAX_LINE_CHARS;
  return `${start > 0 ? "..." : ""}${line.slice(start, end)}${end < line.length ? "..." : ""}`;
}
