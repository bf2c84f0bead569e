/**
 * Searching one file's text as the built-in grep engine does: the whole text scanned with the
 * pattern, matches checked line by line, large files in chunks cut at line ends. It imports
 * nothing from npm, so search workers load it quickly.
 * @module
 */
import { type FileMatches, MAX_STORED_MATCHES } from "./_grep_types.ts";

/** Files up to this size are searched whole; larger ones in chunks of it, cut at line ends. */
const CHUNK_BYTES = 8 * 1024 * 1024;
/**
 * The buffer a search starts with; it doubles, up to {@link CHUNK_BYTES}, when a file does not fit.
 * A whole chunk for every search would keep 8 MB resident for each grep of a small tree.
 */
const FIRST_BUFFER_BYTES = 256 * 1024;

/** What a scan needs to know of the search: plain data, so it can be sent to a worker. */
export interface ScanSpec {
  /** The compiled pattern's source and flags (the formatter re-runs the same pattern). */
  source: string;
  flags: string;
  /** Lines kept before and after each match. */
  context: number;
}

/** What every file's scan shares, made once per search (or per worker). */
export interface ScanTools {
  spec: ScanSpec;
  /** The pattern as written, tested on one line at a time. */
  regex: RegExp;
  /**
   * Global and multiline: one pass over a file's whole text finds candidate lines, each then
   * checked on its own so that no match spans a line break, as in ripgrep.
   */
  candidates: RegExp;
  /** Keeps the byte-order mark, as ripgrep (run with --encoding none) keeps it. */
  decoder: TextDecoder;
  /** One buffer reused for every file, grown as a larger one needs. */
  buffer: Uint8Array;
  /** Awaited between chunks of a large file. */
  pause: () => Promise<void>;
}

/** The shared state for scanning files with `spec`. */
export function createScanTools(spec: ScanSpec, pause: () => Promise<void>): ScanTools {
  return {
    spec,
    regex: new RegExp(spec.source, spec.flags),
    candidates: new RegExp(spec.source, spec.flags + "gm"),
    decoder: new TextDecoder("utf-8", { ignoreBOM: true }),
    buffer: new Uint8Array(FIRST_BUFFER_BYTES),
    pause,
  };
}

/** One file's matches; null when it has none, is binary, or vanished. */
export async function searchFile(path: string, tools: ScanTools): Promise<FileMatches | null> {
  const { decoder, candidates } = tools;
  let buffer = tools.buffer;
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path);
  } catch (error) {
    // Unreadable or removed mid-search: skipped, as ripgrep skips it.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return null;
    }
    throw error;
  }
  using _ = file;
  let scan: TextScan | null = null;
  let filled = 0;
  while (true) {
    const n = file.readSync(buffer.subarray(filled));
    const isEnd = n === null || n === 0;
    if (!isEnd) filled += n;
    if (!isEnd && filled < buffer.length) continue;
    if (!isEnd && buffer.length < CHUNK_BYTES) {
      const grown = new Uint8Array(Math.min(CHUNK_BYTES, 2 * buffer.length));
      grown.set(buffer.subarray(0, filled));
      buffer = tools.buffer = grown;
      continue;
    }
    const cut = isEnd ? filled : buffer.subarray(0, filled).lastIndexOf(0x0a) + 1;
    if (cut === 0 && !isEnd) {
      throw new RangeError(
        `Cannot search "${path}": it has a line longer than ${CHUNK_BYTES} bytes: ` +
          `narrow the search with path or glob to leave it out`,
      );
    }
    const text = decoder.decode(buffer.subarray(0, cut));
    // ripgrep drops a file once it meets a NUL byte, and so does this engine. The check runs on
    // the text: V8 finds a character in a string much faster than a byte in an array.
    if (text.includes("\0")) return null;
    if (scan === null && isEnd) {
      // The common case, a whole file without a match, needs nothing beyond this one test.
      candidates.lastIndex = 0;
      if (!candidates.test(text)) return null;
    }
    scan ??= new TextScan(path, tools);
    scan.search(text, isEnd);
    if (isEnd) break;
    buffer.copyWithin(0, cut, filled);
    filled -= cut;
    await tools.pause();
  }
  // The open file's fstat is the cheapest way to the time that orders results.
  return scan.result(() => file.statSync().mtime?.getTime() ?? 0);
}

/** Finds matched lines in successive chunks of one file, with their context lines. */
class TextScan {
  readonly #path: string;
  readonly #tools: ScanTools;
  readonly #lines = new Map<number, string>();
  readonly #matched: number[] = [];
  #matchCount = 0;
  /** Number of the next chunk's first line. */
  #nextLine = 1;
  /** Context lines after the last stored match are still due up to this line. */
  #afterUntil = 0;
  /** The previous chunk's last lines, for context before a match at a chunk's start. */
  #tail: string[] = [];

  constructor(path: string, tools: ScanTools) {
    this.#path = path;
    this.#tools = tools;
  }

  /** Searches one chunk of text that ends at a line end, or at the file's end when `isLast`. */
  search(text: string, isLast: boolean): void {
    const first = this.#nextLine;
    const { candidates, regex, spec } = this.#tools;
    const context = spec.context;
    if (this.#afterUntil >= first) {
      const due = linesAfter(text, -1, this.#afterUntil - first + 1);
      due.forEach((line, i) => this.#keep(first + i, line));
    }
    // Lines are counted only up to each candidate, so a file without one costs the scan alone.
    let counted = 0;
    let countedLine = first;
    candidates.lastIndex = 0;
    for (let match = candidates.exec(text); match !== null; match = candidates.exec(text)) {
      const start = startOfLine(text, match.index);
      if (start >= text.length) break;
      const end = endOfLine(text, match.index);
      for (
        let nl = text.indexOf("\n", counted);
        nl !== -1 && nl < start;
        nl = text.indexOf("\n", counted)
      ) {
        countedLine++;
        counted = nl + 1;
      }
      const line = text.slice(start, end);
      if (regex.test(line)) this.#record(countedLine, text, { start, end });
      if (end >= text.length) break;
      candidates.lastIndex = end + 1;
    }
    if (isLast) return;
    for (let nl = text.indexOf("\n", counted); nl !== -1; nl = text.indexOf("\n", nl + 1)) {
      countedLine++;
    }
    this.#nextLine = countedLine;
    if (context > 0) this.#tail = linesBefore(text, text.length, context);
  }

  /** The file's matches, or null without any; `mtime` is asked only when there are some. */
  result(mtime: () => number): FileMatches | null {
    if (this.#matchCount === 0) return null;
    return {
      path: this.#path,
      mtime: mtime(),
      lines: this.#lines,
      matched: this.#matched,
      matchCount: this.#matchCount,
    };
  }

  /** Counts a matched line; stores it with its context while under the storage cap. */
  #record(number: number, text: string, span: { start: number; end: number }): void {
    this.#matchCount++;
    if (this.#matched.length >= MAX_STORED_MATCHES) return;
    const context = this.#tools.spec.context;
    this.#matched.push(number);
    const before = linesBefore(text, span.start, context);
    const fromTail = Math.min(context - before.length, number - 1 - before.length);
    const earlier = fromTail > 0 ? this.#tail.slice(-fromTail) : [];
    [...earlier, ...before].forEach((line, i, all) => this.#keep(number - all.length + i, line));
    this.#keep(number, text.slice(span.start, span.end));
    linesAfter(text, span.end, context).forEach((line, i) => this.#keep(number + 1 + i, line));
    this.#afterUntil = number + context;
  }

  #keep(number: number, text: string): void {
    if (!this.#lines.has(number)) this.#lines.set(number, text);
  }
}

function endOfLine(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end === -1 ? text.length : end;
}

/** Up to `n` whole lines before the line starting at offset `start`, in order. */
function linesBefore(text: string, start: number, n: number): string[] {
  const lines: string[] = [];
  for (let end = start - 1; lines.length < n && end >= 0;) {
    const lineStart = startOfLine(text, end);
    lines.unshift(text.slice(lineStart, end));
    end = lineStart - 1;
  }
  return lines;
}

/** Start of the line holding offset `at` (lastIndexOf reads a negative start as 0). */
function startOfLine(text: string, at: number): number {
  return at === 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

/** Up to `n` whole lines after the line ending at offset `end` (-1: from the text's start). */
function linesAfter(text: string, end: number, n: number): string[] {
  const lines: string[] = [];
  let start = end + 1;
  while (lines.length < n && start < text.length) {
    const lineEnd = endOfLine(text, start);
    lines.push(text.slice(start, lineEnd));
    start = lineEnd + 1;
  }
  return lines;
}
