/**
 * tool_output: pages or greps a full output kept in the session's output store when a result
 * was cut (`… N lines omitted … tool_output(id="o7", offset=201)`).
 * @module
 */
import {
  OUTPUT_STORE_SERVICE,
  type OutputStore,
  type Static,
  type ToolContext,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import DESCRIPTION from "./tool_output.md" with { type: "text" };

/** Lines returned per page when the model does not say. */
const DEFAULT_LIMIT = 200;
/** Matching lines shown; the rest are counted. */
const MAX_MATCHES = 200;
/** Characters of one line shown: a minified blob must not fill the page. */
const MAX_LINE_CHARS = 2000;
/** Characters of the result cap kept for the header and the closing line. */
const FRAME_CHARS = 300;

const parameters = Type.Object({
  id: Type.String({ description: 'Output id from the note in a cut result, e.g. "o7"' }),
  offset: Type.Optional(Type.Integer({
    minimum: 1,
    default: 1,
    description: "Line number to start reading at (1-based), as the note says",
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 5000,
    default: DEFAULT_LIMIT,
    description: "Lines to return",
  })),
  char_offset: Type.Optional(Type.Integer({
    minimum: 0,
    description: "Read on within the one long line at offset from this character, as a cut " +
      "line's note says",
  })),
  pattern: Type.Optional(Type.String({
    description: "Regular expression (JavaScript syntax): return only the matching lines",
  })),
  ignore_case: Type.Optional(Type.Boolean({
    default: false,
    description: "Match pattern letters in either case",
  })),
});

type ToolOutputArgs = Static<typeof parameters>;

/** tool_output's registration: a read gated by `tool_permission.read`. */
export const toolOutputSpec = {
  name: "tool_output",
  description: DESCRIPTION,
  short: "Page or grep the full output of a cut tool result by its id",
  parameters,
  category: "read",
  permission: "read",
  keyArg: "id",
  glyph: "↳",
  verb: "Output",
  paramAliases: { output_id: "id", start: "offset", line: "offset", regex: "pattern" },
} satisfies ToolSpec<typeof parameters>;

/** Pages or greps a kept output. */
export async function readToolOutput(args: ToolOutputArgs, ctx: ToolContext): Promise<string> {
  const store = ctx.services[OUTPUT_STORE_SERVICE] as OutputStore | undefined;
  if (store === undefined) {
    throw new Error(
      `Cannot read output "${args.id}": outputs are kept only in a session (replio run or the ` +
        "REPL): run the command again",
    );
  }
  const maxChars = ctx.config.get("tool_max_result_chars");
  const budget = maxChars === 0 ? Infinity : maxChars - FRAME_CHARS;
  if (args.pattern !== undefined) return await grep(store, args, args.pattern, budget);
  if (args.char_offset !== undefined) return await lineSlice(store, args, args.char_offset, budget);
  return await page(store, args, budget);
}

/** Part of one long line, from `from` on, as much as the result holds. */
async function lineSlice(
  store: OutputStore,
  args: ToolOutputArgs,
  from: number,
  budget: number,
): Promise<string> {
  const number = args.offset ?? 1;
  const { lines, total } = await store.page(args.id, number, 1);
  const n = (x: number) => x.toLocaleString("en-US");
  const line = lines[0];
  if (line === undefined) {
    return `(end of output ${args.id}: it has ${n(total)} lines; offset ${n(number)} is past it)`;
  }
  const end = Math.min(line.length, from + Math.max(1, Math.min(budget, 50_000)));
  const head = `${args.id}: line ${n(number)}, chars ${n(from)}–${n(end)} of ${n(line.length)}`;
  const more = end < line.length
    ? `(more: tool_output(id="${args.id}", offset=${number}, char_offset=${end}))`
    : `(end of line ${n(number)})`;
  return [head, line.slice(from, end), more].join("\n");
}

async function page(store: OutputStore, args: ToolOutputArgs, budget: number): Promise<string> {
  const first = args.offset ?? 1;
  const { lines, total } = await store.page(args.id, first, args.limit ?? DEFAULT_LIMIT);
  const n = (x: number) => x.toLocaleString("en-US");
  if (lines.length === 0) {
    return `(end of output ${args.id}: it has ${n(total)} lines; offset ${n(first)} is past it)`;
  }
  const shown: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const text = cutLine(line, args.id, first + i);
    if (shown.length > 0 && used + text.length + 1 > budget) break;
    shown.push(text);
    used += text.length + 1;
  }
  const last = first + shown.length - 1;
  const out = [`${args.id}: lines ${n(first)}–${n(last)} of ${n(total)}`, ...shown];
  out.push(
    last < total
      ? `(more: tool_output(id="${args.id}", offset=${last + 1}))`
      : `(end of output ${args.id})`,
  );
  return out.join("\n");
}

async function grep(
  store: OutputStore,
  args: ToolOutputArgs,
  pattern: string,
  budget: number,
): Promise<string> {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, args.ignore_case ? "i" : "");
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SyntaxError(
      `Cannot search output "${args.id}" for "${pattern}": not a valid regular expression ` +
        `(${detail}): escape special characters with a backslash`,
    );
  }
  const { matches, count, total } = await store.grep(args.id, regex, MAX_MATCHES);
  const n = (x: number) => x.toLocaleString("en-US");
  if (count === 0) return `(no lines of output ${args.id} match "${pattern}"; it has ${n(total)})`;
  const shown: string[] = [];
  let used = 0;
  for (const [number, line] of matches) {
    const text = `${number}: ${cutLine(line, args.id, number)}`;
    if (shown.length > 0 && used + text.length + 1 > budget) break;
    shown.push(text);
    used += text.length + 1;
  }
  const out = [
    `${args.id}: ${n(count)} of ${n(total)} lines match "${pattern}"`,
    ...shown,
  ];
  if (shown.length < count) {
    out.push(
      `(showing ${n(shown.length)} of ${n(count)} matching lines: narrow the pattern, or read ` +
        `around one with tool_output(id="${args.id}", offset=N))`,
    );
  }
  return out.join("\n");
}

/** A line as shown in a page: a long one is cut, saying how to read the rest of it. */
function cutLine(line: string, id: string, number: number): string {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line;
  if (text.length <= MAX_LINE_CHARS) return text;
  return `${text.slice(0, MAX_LINE_CHARS)} … (${
    (text.length - MAX_LINE_CHARS).toLocaleString("en-US")
  } more chars: tool_output(id="${id}", offset=${number}, char_offset=${MAX_LINE_CHARS}))`;
}
