/**
 * The REPL's pager for kept outputs (`/output o7`): the whole file on the terminal's alternate
 * screen, a screen at a time, with line and page moves, top and end, and a forward search.
 * Lines are found through an index of their byte offsets, built once, so moving around a 50 MB
 * output reads one screen of it, not the file up to that point.
 * @module
 */
import { stripVTControlCharacters } from "node:util";
import { displayWidth } from "../ui/text_width.ts";
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";

/** What the pager needs of the terminal. */
export interface PagerTerminal {
  out: TextWriter;
  styles: Styles;
  /** Columns and rows now: read at each redraw, so a resized window is followed. */
  size(): { columns: number; rows: number };
  /** Hands raw key chunks to `onKeys` until it returns true. */
  readKeys(onKeys: (keys: string) => boolean): Promise<void>;
}

const ENTER_SCREEN = "\x1b[?1049h\x1b[?25l";
const LEAVE_SCREEN = "\x1b[?25h\x1b[?1049l";
const READ_BYTES = 1 << 20;

type Move = "down" | "up" | "pageDown" | "pageUp" | "top" | "end" | "search" | "next" | "quit";

const KEYS: readonly [string, Move][] = [
  ["\x1b[A", "up"],
  ["\x1bOA", "up"],
  ["\x1b[B", "down"],
  ["\x1bOB", "down"],
  ["\x1b[5~", "pageUp"],
  ["\x1b[6~", "pageDown"],
  ["\x1b[H", "top"],
  ["\x1b[F", "end"],
  ["\r", "down"],
  ["j", "down"],
  ["k", "up"],
  [" ", "pageDown"],
  ["f", "pageDown"],
  ["b", "pageUp"],
  ["g", "top"],
  ["G", "end"],
  ["/", "search"],
  ["n", "next"],
  ["q", "quit"],
  ["\x03", "quit"],
  ["\x04", "quit"],
  ["\x1b", "quit"],
];

/** Byte offsets of each line's start in a file, plus the file's end. */
export class LineIndex {
  private constructor(readonly starts: Float64Array, readonly lines: number) {}

  /** Scans `file` once. A last line without a newline counts; an empty file has no lines. */
  static async build(file: Deno.FsFile): Promise<LineIndex> {
    let starts = new Float64Array(1024);
    let lines = 0;
    let offset = 0;
    let atLineStart = true;
    const buffer = new Uint8Array(READ_BYTES);
    await file.seek(0, Deno.SeekMode.Start);
    for (;;) {
      const read = await file.read(buffer);
      if (read === null) break;
      // A plain byte loop: faster here than indexOf, whose per-call cost dominates short lines.
      for (let i = 0; i < read; i++) {
        if (atLineStart) {
          if (lines + 1 >= starts.length) {
            const grown = new Float64Array(starts.length * 2);
            grown.set(starts);
            starts = grown;
          }
          starts[lines++] = offset + i;
          atLineStart = false;
        }
        if (buffer[i] === 10) atLineStart = true;
      }
      offset += read;
    }
    starts[lines] = offset;
    return new LineIndex(starts, lines);
  }

  /** Lines `first` (0-based) to `first + count`, without their newlines. */
  async read(file: Deno.FsFile, first: number, count: number): Promise<string[]> {
    const last = Math.min(this.lines, first + count);
    if (first >= last) return [];
    const from = this.starts[first]!;
    const bytes = new Uint8Array(this.starts[last]! - from);
    await file.seek(from, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < bytes.length) {
      const read = await file.read(bytes.subarray(filled));
      if (read === null) break;
      filled += read;
    }
    const text = new TextDecoder().decode(bytes.subarray(0, filled));
    return text.replace(/\n$/, "").split("\n").slice(0, last - first);
  }
}

/**
 * Pages `path` until the person quits; `firstLine` (1-based) is the first line shown. Resolves
 * once the alternate screen is left and the REPL's screen is back as it was.
 */
export async function pageOutput(
  path: string,
  title: string,
  terminal: PagerTerminal,
  firstLine = 1,
): Promise<void> {
  using file = await Deno.open(path, { read: true });
  const { out, styles: s } = terminal;
  out.write(ENTER_SCREEN + "\x1b[H\x1b[2J" + s.dim(`Indexing ${title}…`));
  const index = await LineIndex.build(file);
  const rows = () => Math.max(1, terminal.size().rows - 1);
  let top = clamp(firstLine - 1, 0, Math.max(0, index.lines - rows()));
  let query: string | null = null;
  let lastQuery = "";
  let note = "";
  let done = false;
  let drawn = 0;
  // Redraws and searches run one after another, each on the state the keys left.
  let work = Promise.resolve();
  const later = (step: () => Promise<void>) => {
    work = work.then(step).catch((error) => {
      note = `Cannot read ${title}: ${error instanceof Error ? error.message : error}`;
    });
  };

  const draw = async () => {
    if (done) return;
    const { columns } = terminal.size();
    const lines = await index.read(file, top, rows());
    const body = lines.map((line) => fitColumns(visible(line), columns));
    while (body.length < rows()) body.push(s.dim("~"));
    const status = query !== null
      ? `/${query}`
      : note || footer(title, top, lines.length, index.lines);
    // The first screen clears the indexing note; later ones overwrite in place (no flicker).
    out.write(
      (drawn++ ? "\x1b[H" : "\x1b[H\x1b[2J") + body.map((line) => line + "\x1b[K").join("\r\n") +
        "\r\n" +
        s.bold(fitColumns(status, columns)) + "\x1b[K",
    );
  };

  const search = async (from: number) => {
    const needle = lastQuery.toLowerCase();
    const block = 4096;
    for (let first = from; first < index.lines; first += block) {
      const lines = await index.read(file, first, block);
      const hit = lines.findIndex((line) => visible(line).toLowerCase().includes(needle));
      if (hit !== -1) {
        top = clamp(first + hit, 0, Math.max(0, index.lines - 1));
        return;
      }
    }
    note = `"${lastQuery}" not found from line ${fmt(from + 1)} on · q quits`;
  };

  later(draw);
  await terminal.readKeys((chunk) => {
    note = "";
    let rest = chunk;
    while (rest && !done) {
      if (query !== null) {
        // Typing a search: Enter runs it, Esc drops it, Backspace takes back a character.
        const ch = rest[0]!;
        rest = rest.slice(rest.startsWith("\x1b") ? rest.length : 1);
        if (ch === "\r" || ch === "\n") {
          lastQuery = query;
          query = null;
          if (lastQuery) later(() => search(top + 1));
        } else if (ch === "\x1b" || ch === "\x03") query = null;
        else if (ch === "\x7f" || ch === "\b") query = query.slice(0, -1);
        else if (ch >= " ") query += ch;
        continue;
      }
      const match = KEYS.find(([sequence]) => rest.startsWith(sequence));
      rest = rest.slice(match ? match[0].length : 1);
      const page = rows();
      const end = Math.max(0, index.lines - page);
      switch (match?.[1]) {
        case "down":
          top = Math.min(end, top + 1);
          break;
        case "up":
          top = Math.max(0, top - 1);
          break;
        case "pageDown":
          top = Math.min(end, top + page);
          break;
        case "pageUp":
          top = Math.max(0, top - page);
          break;
        case "top":
          top = 0;
          break;
        case "end":
          top = end;
          break;
        case "search":
          query = "";
          break;
        case "next":
          if (lastQuery) later(() => search(top + 1));
          break;
        case "quit":
          done = true;
      }
    }
    later(draw);
    return done;
  });
  await work;
  out.write(LEAVE_SCREEN);
}

function footer(title: string, top: number, shown: number, total: number): string {
  if (total === 0) return `${title} is empty · q quits`;
  const last = top + shown;
  const where = last >= total ? "(end)" : `(${Math.floor((last / total) * 100)}%)`;
  return `${title}: lines ${fmt(top + 1)}–${fmt(last)} of ${fmt(total)} ${where} · ` +
    "space/b page · j/k line · g/G top/end · /text search, n next · q quits";
}

/** A line as the terminal should show it: no escapes or control characters of the output's. */
function visible(line: string): string {
  // deno-lint-ignore no-control-regex
  return stripVTControlCharacters(line).replace(/\t/g, "    ").replace(/[\x00-\x1f\x7f]/g, "");
}

/**
 * Cut to `columns` terminal columns, wide characters counted as two (no wrapping, so one line is
 * one row and redrawing stays simple).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(fitColumns("abcdef", 4), "abc…");
 * assert.equal(fitColumns("日本語です", 6), "日本…");
 * ```
 */
export function fitColumns(line: string, columns: number): string {
  if (displayWidth(line) <= columns) return line;
  let cut = "";
  let width = 0;
  for (const char of line) {
    width += displayWidth(char);
    if (width > columns - 1) break;
    cut += char;
  }
  return cut + "…";
}

function clamp(n: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, n));
}

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}
