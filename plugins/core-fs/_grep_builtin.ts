/**
 * grep's built-in engine: the directory walk, then each file searched as whole text with the
 * compiled pattern, streamed in chunks when large. Output matches ripgrep's line for line.
 * @module
 */
import { relative } from "node:path";
import { compileGlob } from "./_match_glob.ts";
import {
  type FileMatches,
  MAX_STORED_MATCHES,
  type SearchOutcome,
  type SearchRequest,
} from "./_grep_types.ts";
import { type WalkedFile, walkFiles } from "./_walk.ts";

/** Files searched at once: reads overlap while the pattern runs on another file's text. */
const SEARCH_CONCURRENCY = 8;
/** Files up to this size are searched whole; larger ones in chunks of it, cut at line ends. */
const CHUNK_BYTES = 8 * 1024 * 1024;

/** Searches the request's files without any external program. */
export async function searchBuiltin(request: SearchRequest): Promise<SearchOutcome> {
  const { target, signal, deadline } = request;
  let files: WalkedFile[];
  let complete = true;
  if (request.isFile) {
    files = [{ path: target, rel: relative(target, target) }];
  } else {
    const walk = await walkFiles({ root: target, worktree: request.worktree, signal, deadline });
    complete = walk.complete;
    const isMatch = request.glob === undefined ? null : compileGlob(request.glob);
    files = isMatch ? walk.files.filter((f) => isMatch(f.rel)) : walk.files;
  }
  const found: FileMatches[] = [];
  let next = 0;
  const searchSome = async () => {
    while (next < files.length) {
      signal.throwIfAborted();
      if (performance.now() > deadline) {
        complete = false;
        return;
      }
      const file = files[next++]!;
      const matches = await searchFile(file.path, request);
      if (matches) found.push(matches);
    }
  };
  await Promise.all(Array.from({ length: SEARCH_CONCURRENCY }, searchSome));
  return { files: found, complete };
}

/** One file's matches; null when it has none, is binary, or vanished. */
async function searchFile(path: string, request: SearchRequest): Promise<FileMatches | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path);
  } catch (error) {
    // Unreadable or removed mid-search: skipped, as ripgrep skips it.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return null;
    }
    throw error;
  }
  using _ = file;
  const scan = new TextScan(path, request);
  const buffer = new Uint8Array(CHUNK_BYTES);
  let filled = 0;
  while (true) {
    const n = await file.read(buffer.subarray(filled));
    const isEnd = n === null;
    if (!isEnd) filled += n;
    if (!isEnd && filled < buffer.length) continue;
    const bytes = buffer.subarray(0, filled);
    // ripgrep drops a file once it meets a NUL byte; so does this engine, wherever the NUL is.
    if (bytes.indexOf(0) !== -1) return null;
    if (isEnd) {
      if (filled > 0) scan.search(bytes, true);
      break;
    }
    const cut = bytes.lastIndexOf(0x0a) + 1;
    if (cut === 0) {
      throw new RangeError(
        `Cannot search "${path}": it has a line longer than ${CHUNK_BYTES} bytes: ` +
          `narrow the search with path or glob to leave it out`,
      );
    }
    scan.search(bytes.subarray(0, cut), false);
    buffer.copyWithin(0, cut, filled);
    filled -= cut;
    request.signal.throwIfAborted();
  }
  return scan.result();
}

/** Finds matched lines in successive chunks of one file, with their context lines. */
class TextScan {
  readonly #path: string;
  readonly #request: SearchRequest;
  readonly #candidates: RegExp;
  // The byte-order mark is kept, as ripgrep (run with --encoding none) keeps it.
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  readonly #lines = new Map<number, string>();
  readonly #matched: number[] = [];
  #matchCount = 0;
  /** Number of the next chunk's first line. */
  #nextLine = 1;
  /** Context lines after the last stored match are still due up to this line. */
  #afterUntil = 0;
  /** The previous chunk's last lines, for context before a match at a chunk's start. */
  #tail: string[] = [];

  constructor(path: string, request: SearchRequest) {
    this.#path = path;
    this.#request = request;
    // Global and multiline: one pass over the whole text finds candidate lines, each then
    // checked on its own so that no match spans a line break, as in ripgrep.
    this.#candidates = new RegExp(request.regex.source, request.regex.flags + "gm");
  }

  /** Searches one chunk that ends at a line end, or at the file's end when `isLast`. */
  search(bytes: Uint8Array, isLast: boolean): void {
    const text = this.#decoder.decode(bytes);
    const first = this.#nextLine;
    const context = this.#request.context;
    if (this.#afterUntil >= first) {
      const due = linesAfter(text, -1, this.#afterUntil - first + 1);
      due.forEach((line, i) => this.#keep(first + i, line));
    }
    // Lines are counted only up to each candidate, so a file without one costs the scan alone.
    let counted = 0;
    let countedLine = first;
    const candidates = this.#candidates;
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
      if (this.#request.regex.test(line)) this.#record(countedLine, text, { start, end });
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

  /** The file's matches, or null without any. */
  result(): FileMatches | null {
    if (this.#matchCount === 0) return null;
    return {
      path: this.#path,
      lines: this.#lines,
      matched: this.#matched,
      matchCount: this.#matchCount,
    };
  }

  /** Counts a matched line; stores it with its context while under the storage cap. */
  #record(number: number, text: string, span: { start: number; end: number }): void {
    this.#matchCount++;
    if (this.#matched.length >= MAX_STORED_MATCHES) return;
    const context = this.#request.context;
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
