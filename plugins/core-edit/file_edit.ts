/**
 * file_edit: exact-text replacement in one file, keeping its line endings, byte-order mark and
 * permissions, written atomically.
 * @module
 */
import {
  type Static,
  SYNC_IO_MAX_BYTES,
  type ToolArgs,
  type ToolContext,
  type ToolSpec,
  Type,
  writeFileAtomic,
} from "../../src/plugins/api.ts";
import { countLines, formatHunks, lineChanges, type Replacement } from "./_line_changes.ts";
import DESCRIPTION from "./file_edit.md" with { type: "text" };

/** Lines of unified diff shown in the preview: enough for a typical edit, short on a terminal. */
const PREVIEW_MAX_LINES = 60;
/** Context lines around each change in the preview, as `diff -u` shows. */
const PREVIEW_CONTEXT_LINES = 3;
/** Occurrence line numbers listed in a message before the rest are summarised. */
const LISTED_LINES = 10;

const BOM = "\uFEFF";

const parameters = Type.Object({
  path: Type.String({ description: "File to edit, relative to the worktree" }),
  old: Type.String({
    description:
      "Exact text to replace, indentation included, without file_read's line-number prefixes",
  }),
  new: Type.String({ description: "Text that replaces each occurrence of old" }),
  count: Type.Optional(Type.Integer({
    minimum: 0,
    default: 1,
    description: "How many occurrences of old the file must hold, all replaced; 0 replaces all",
  })),
});

type EditArgs = Static<typeof parameters>;

/** file_edit's registration: a write gated by `tool_permission.edit`, previewed as a diff. */
export const fileEditSpec = {
  name: "file_edit",
  description: DESCRIPTION,
  parameters,
  category: "write",
  permission: "edit",
  deno: { read: true, write: true },
  pathArg: "path",
  keyArg: "path",
  verb: "Edit",
  aliases: ["edit"],
  status: previewEdit,
} satisfies ToolSpec<typeof parameters>;

/** Replaces `old` with `new` in the file and reports the replacements and changed lines. */
export async function editFile(args: EditArgs, ctx: ToolContext): Promise<string> {
  const file = await ctx.resolvePath(args.path, "write");
  const edit = planEdit(args, await readText(file, args.path, ctx.signal));
  const { added, removed } = countLines(await lineChanges(edit));
  ctx.signal.throwIfAborted();
  await writeFileAtomic(file, edit.after, { resolved: true });
  const n = edit.lines.length;
  return `Edited ${args.path}: ${n} ${n === 1 ? "replacement" : "replacements"} ` +
    `${atLines(edit.lines)} (+${added} -${removed} lines)`;
}

/** The status block: a summary line, then the unified diff the edit would make. */
async function previewEdit(args: ToolArgs, ctx: ToolContext): Promise<string> {
  const edit = planEdit(
    args as EditArgs,
    await readText(await ctx.resolvePath(String(args.path), "read"), String(args.path)),
  );
  const changes = await lineChanges(edit);
  const { added, removed } = countLines(changes);
  const hunks = formatHunks(edit.body, changes, PREVIEW_CONTEXT_LINES);
  const more = hunks.length - PREVIEW_MAX_LINES;
  const shown = more > 0
    ? [...hunks.slice(0, PREVIEW_MAX_LINES), `... (${more} more diff lines)`]
    : hunks;
  return [`${args.path} (+${added} -${removed} lines)`, ...shown].join("\n");
}

/** A worked-out edit: where each occurrence is, what replaces it, and the text after. */
interface PlannedEdit extends Replacement {
  after: string;
  /** 1-based line of each replaced occurrence. */
  lines: number[];
}

/** Finds the occurrences and builds the new text, or throws the message that says what to do. */
function planEdit(args: EditArgs, before: string): PlannedEdit {
  const { path } = args;
  if (args.old === "") {
    throw new RangeError(
      `Cannot edit "${path}": old is empty: put the text to replace in old ` +
        `(to insert, include a neighbouring line), or use file_write to create the file`,
    );
  }
  if (args.old === args.new) {
    throw new RangeError(
      `Cannot edit "${path}": old and new are identical, so nothing would change: ` +
        `put the replacement text in new`,
    );
  }
  const bom = before.startsWith(BOM) ? BOM : "";
  const body = before.slice(bom.length);
  const { old, replacement } = matchLineEndings(body, args.old, args.new);
  const starts = findAll(body, old);
  const count = args.count ?? 1;
  if (starts.length === 0) throw new RangeError(notFoundMessage(path, body, args.old));
  if (count !== 0 && starts.length !== count) {
    throw new RangeError(countMessage(path, count, linesAt(body, starts)));
  }
  let after = bom;
  let from = 0;
  for (const start of starts) {
    after += body.slice(from, start) + replacement;
    from = start + old.length;
  }
  after += body.slice(from);
  if (after === before) {
    throw new RangeError(
      `Cannot edit "${path}": old and new differ only in line endings, which follow the file: ` +
        `nothing would change; use run_command to convert line endings`,
    );
  }
  return {
    body,
    starts,
    oldLength: old.length,
    replacement,
    after,
    lines: linesAt(body, starts),
  };
}

/**
 * Models write `\n`; a CRLF file is matched and written with `\r\n` (and an LF file with `\n`)
 * so an edit never leaves mixed line endings. Text that matches as given is left as given.
 */
function matchLineEndings(
  body: string,
  old: string,
  replacement: string,
): { old: string; replacement: string } {
  const eol = dominantEol(body);
  if (eol === null) return { old, replacement };
  const convert = (text: string) => text.replace(/\r?\n/g, eol);
  return {
    old: body.includes(old) ? old : convert(old),
    replacement: convert(replacement),
  };
}

/** `\r\n` when most line breaks are CRLF, `\n` when most are LF, null for a single line. */
function dominantEol(text: string): "\r\n" | "\n" | null {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  if (crlf === 0 && lf === 0) return null;
  return crlf >= lf ? "\r\n" : "\n";
}

/** Starts of the non-overlapping occurrences, left to right, as `replaceAll` would find them. */
function findAll(text: string, needle: string): number[] {
  const starts: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
    starts.push(at);
  }
  return starts;
}

/** The 1-based line of each ascending index, in one pass over the text. */
function linesAt(text: string, starts: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const start of starts) {
    for (
      let at = text.indexOf("\n", from);
      at !== -1 && at < start;
      at = text.indexOf("\n", at + 1)
    ) {
      line++;
      from = at + 1;
    }
    lines.push(line);
  }
  return lines;
}

function countMessage(path: string, count: number, lines: number[]): string {
  const found = lines.length;
  const times = found === 1 ? "once" : `${found} times`;
  const fix = found > count
    ? `add surrounding lines to old to make it unique, or set count to ${found} to replace ` +
      `them all (0 replaces every occurrence)`
    : `set count to ${found} (0 replaces every occurrence), or re-read the file with file_read`;
  return `Cannot edit "${path}": old occurs ${times} (${atLines(lines)}), expected ${count}: ` +
    fix;
}

/** Nothing matched: say so, and point at the near miss when there is one. */
function notFoundMessage(path: string, body: string, old: string): string {
  const head = `Cannot edit "${path}": old was not found in the file`;
  const unprefixed = stripLineNumbers(old);
  if (unprefixed !== null && body.includes(matchLineEndings(body, unprefixed, "").old)) {
    return `${head}: old starts its lines with line numbers from file_read: ` +
      `remove the line-number prefixes and call file_edit again`;
  }
  if (toLf(body).includes(toLf(old))) {
    return `${head} as given, but it matches when CR characters are ignored: the file mixes ` +
      `CRLF and LF line endings: write old with the exact \\r\\n or \\n of those lines, ` +
      `or use file_write`;
  }
  const near = findIgnoringWhitespace(body, old);
  if (near.length > 0) {
    return `${head}, but it matches when whitespace is ignored (${atLines(near)}): ` +
      `re-read those lines with file_read and copy old exactly (indentation, tabs and ` +
      `trailing spaces count)`;
  }
  return `${head}: re-read the file with file_read and copy old exactly as it appears`;
}

/** Old text whose every line carries a `12\t` or `12: ` style prefix, without it; else null. */
function stripLineNumbers(old: string): string | null {
  const prefix = /^ *\d+(?:\t|: |\| |│ ?)/;
  const lines = toLf(old).split("\n");
  const numbered = lines.filter((line) => line !== "");
  if (numbered.length === 0 || !numbered.every((line) => prefix.test(line))) return null;
  return lines.map((line) => line.replace(prefix, "")).join("\n");
}

/** Lines where `old` occurs once runs of whitespace are collapsed and line ends trimmed. */
function findIgnoringWhitespace(body: string, old: string): number[] {
  const squash = (line: string) => line.trim().replace(/\s+/g, " ");
  const wanted = toLf(old).split("\n").map(squash);
  if (wanted.every((line) => line === "")) return [];
  const lines = toLf(body).split("\n").map(squash);
  const last = wanted.length - 1;
  const found: number[] = [];
  for (let i = 0; i + last < lines.length; i++) {
    const matches = last === 0 ? lines[i]!.includes(wanted[0]!) : lines[i]!.endsWith(wanted[0]!) &&
      wanted.slice(1, last).every((line, k) => lines[i + 1 + k] === line) &&
      lines[i + last]!.startsWith(wanted[last]!);
    if (matches) found.push(i + 1);
  }
  return found;
}

function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

/** `at line 3` or `at lines 3, 9, 12`, shortened after {@link LISTED_LINES} entries. */
function atLines(lines: number[]): string {
  const listed = lines.slice(0, LISTED_LINES).join(", ");
  const rest = lines.length - LISTED_LINES;
  return `at ${lines.length === 1 ? "line" : "lines"} ${listed}` +
    (rest > 0 ? ` and ${rest} more` : "");
}

/** Reads a UTF-8 text file, with errors that name the file and the way forward. */
async function readText(file: string, path: string, signal?: AbortSignal): Promise<string> {
  let bytes: Uint8Array;
  try {
    const info = Deno.statSync(file);
    if (!info.isFile) {
      throw new TypeError(`Cannot edit "${path}": it is not a regular file: give a file's path`);
    }
    bytes = info.size <= SYNC_IO_MAX_BYTES
      ? Deno.readFileSync(file)
      : await Deno.readFile(file, signal ? { signal } : {});
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(
        `Cannot edit "${path}": the file does not exist: check the path with list_dir or glob, ` +
          `or create the file with file_write`,
      );
    }
    throw error;
  }
  try {
    // ignoreBOM keeps the mark in the text, so it is written back exactly as found.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new TypeError(
      `Cannot edit "${path}": it is not UTF-8 text: file_edit changes text files only; ` +
        `use run_command for binary files`,
    );
  }
}
