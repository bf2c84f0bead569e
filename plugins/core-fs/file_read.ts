/**
 * file_read: a window of a text file with numbered lines. The file is streamed in chunks, so a
 * window near the end of a gigabyte log costs one pass and a few megabytes of memory.
 * @module
 */
import {
  type Static,
  SYNC_IO_MAX_BYTES,
  type ToolContext,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import { guessBinaryType, looksBinary } from "./_binary.ts";
import { isMissing, rethrowDenied } from "./_path_errors.ts";
import { displayPath, formatBytes } from "./_display.ts";
import DESCRIPTION from "./file_read.md" with { type: "text" };

/** Bytes read per step: large enough to amortise each read, small enough to keep memory flat. */
const CHUNK_BYTES = 1 << 20;
/** The smallest read buffer: a small file's buffer is its size, not a whole chunk. */
const MIN_BUFFER_BYTES = 4096;
/** Characters of one line shown before it is cut, so a minified bundle cannot fill a window. */
const MAX_LINE_CHARS = 4000;
/** Past this many bytes (and past the window) counting stops: a full count would stall the turn. */
const COUNT_MAX_BYTES = 2 * 1024 ** 3;
/** Characters of the result cap kept for the header and the closing line. */
const FRAME_CHARS = 300;

/** The whole result for a file with no bytes. */
const EMPTY_FILE = "(empty file)";

const parameters = Type.Object({
  path: Type.String({ description: "File to read, relative to the worktree" }),
  offset: Type.Optional(Type.Integer({
    minimum: 1,
    default: 1,
    description: "First line to show, 1-based",
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 0,
    default: 500,
    description: "How many lines to show; 0 returns only the header with the file's size",
  })),
});

type ReadArgs = Static<typeof parameters>;

/** file_read's registration: a read gated by `tool_permission.read`. */
export const fileReadSpec = {
  name: "file_read",
  description: DESCRIPTION,
  short: "Read a text file with numbered lines, a window at a time",
  parameters,
  category: "read",
  permission: "read",
  deno: { read: true },
  pathArg: "path",
  keyArg: "path",
  aliases: ["read_file", "read", "view"],
  paramAliases: { cursor: "offset", start_line: "offset", lines: "limit", file_path: "path" },
  note: (result: string) => result === EMPTY_FILE,
} satisfies ToolSpec<typeof parameters>;

/** Reads a window of lines from a text file, with a header giving the file's size. */
export async function readFile(args: ReadArgs, ctx: ToolContext): Promise<string> {
  const file = await ctx.resolvePath(args.path, "read");
  const shown = displayPath(file, ctx.worktree);
  const info = regularFileInfo(file, shown);
  const offset = args.offset ?? 1;
  const limit = args.limit ?? 500;
  const maxChars = ctx.config.get("tool_max_result_chars");
  using handle = openFile(file, shown);
  const scan = await scanFile(handle, info.size, {
    first: offset,
    last: limit === 0 ? 0 : offset + limit - 1,
    budget: maxChars === 0 ? Infinity : Math.max(maxChars - FRAME_CHARS, 1),
    signal: ctx.signal,
  });
  if (scan.kind === "empty") return EMPTY_FILE;
  if (scan.kind === "binary") {
    return `# ${shown} - binary file (${guessBinaryType(scan.head)}), ` +
      `${formatBytes(scan.bytes)}: not shown as text`;
  }
  const total = scan.complete ? `${scan.lines}` : `more than ${scan.lines}`;
  const totalLines = `${total} ${scan.lines === 1 && scan.complete ? "line" : "lines"}`;
  const size = scan.complete
    ? `${scan.chars} ${scan.chars === 1 ? "char" : "chars"}`
    : `${scan.bytes} bytes (counting stopped after ${formatBytes(COUNT_MAX_BYTES)})`;
  const endings = scan.crlf ? ", CRLF line endings" : "";
  const header = `# ${shown} - ${totalLines}, ${size}${endings}`;
  if (limit === 0) return header;
  if (scan.window.length === 0) {
    throw new RangeError(
      `Cannot read "${shown}" from line ${offset}: it has ${totalLines}: ` +
        `call again with an offset from 1 to ${scan.lines}`,
    );
  }
  const end = offset + scan.window.length - 1;
  const isPartial = offset > 1 || end < scan.lines || !scan.complete;
  const width = String(end).length;
  const body = scan.window.map((line, i) => `${String(offset + i).padStart(width)}\t${line}`);
  const parts = [isPartial ? `${header} (showing ${offset}-${end})` : header, ...body];
  if (end < scan.lines || !scan.complete) {
    const why = scan.cutByBudget ? " (output limit reached)" : "";
    parts.push(
      `Showing lines ${offset}-${end} of ${total}${why}: call again with offset=${end + 1}`,
    );
  }
  return parts.join("\n");
}

/** The file's metadata (synchronous: see SYNC_IO_MAX_BYTES), or why it cannot be read. */
function regularFileInfo(file: string, shown: string): Deno.FileInfo {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
    throw new Deno.errors.NotFound(
      `Cannot read "${shown}": no such file: check the path with list_dir or glob`,
    );
  }
  if (info.isDirectory) {
    throw new TypeError(
      `Cannot read "${shown}": it is a directory: use list_dir to see its entries`,
    );
  }
  if (!info.isFile) {
    throw new TypeError(
      `Cannot read "${shown}": it is not a regular file (a device, socket or pipe): ` +
        `give a file's path`,
    );
  }
  return info;
}

function openFile(file: string, shown: string): Deno.FsFile {
  try {
    return Deno.openSync(file);
  } catch (error) {
    return rethrowDenied(error, `Cannot read "${shown}"`);
  }
}

/** Which lines to collect, and how many characters they may take. */
interface WindowRequest {
  /** First line to collect, 1-based. */
  first: number;
  /** Last line to collect; below `first` collects none. */
  last: number;
  /** Characters the numbered lines may take before the window ends early. */
  budget: number;
  signal: AbortSignal;
}

/** What one pass over a file found. */
type FileScan =
  | { kind: "empty" }
  | { kind: "binary"; head: Uint8Array; bytes: number }
  | {
    kind: "text";
    /** Lines in the file, or lines counted before counting stopped. */
    lines: number;
    /** UTF-16 characters, as the result cap counts them (valid when complete). */
    chars: number;
    bytes: number;
    /** False when the count stopped at {@link COUNT_MAX_BYTES}. */
    complete: boolean;
    crlf: boolean;
    /** The collected lines, ready to show. */
    window: string[];
    cutByBudget: boolean;
  };

/**
 * One streaming pass: counts lines (four bytes at a time) and characters, and decodes only the
 * lines of the window. Memory stays at one chunk plus the window. The first
 * {@link SYNC_IO_MAX_BYTES} are read synchronously: most files the model reads are small, and
 * each async read is a thread hand-off.
 */
async function scanFile(
  file: Deno.FsFile,
  size: number,
  request: WindowRequest,
): Promise<FileScan> {
  // A multiple of four, for the word view; a whole chunk only when the file may need one.
  let buffer = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(MIN_BUFFER_BYTES, size + 4) & ~3));
  let words = new Uint32Array(buffer.buffer);
  const collector = new WindowCollector(request);
  const decoder = new TextDecoder();
  let line = 1;
  let bytes = 0;
  let chars = 0;
  let lastByte = -1;
  // A chunk after one that was decoded is decoded too: it may finish a split character.
  let decoderBusy = false;
  while (true) {
    request.signal.throwIfAborted();
    const n = bytes < SYNC_IO_MAX_BYTES ? file.readSync(buffer) : await file.read(buffer);
    if (n === null) break;
    const chunk = buffer.subarray(0, n);
    if (bytes === 0 && looksBinary(chunk)) {
      return { kind: "binary", head: chunk.slice(0, 64), bytes: file.statSync().size };
    }
    bytes += n;
    lastByte = chunk[n - 1]!;
    const { newlines, isAscii } = countNewlines(words, chunk);
    if (isAscii && !decoderBusy) {
      chars += n;
    } else {
      chars += decoder.decode(chunk, { stream: true }).length;
      decoderBusy = !isAscii;
    }
    if (collector.wants(line, line + newlines)) collector.take(chunk, line);
    line += newlines;
    // The file grew after it was measured: the rest is read a whole chunk at a time.
    if (n === buffer.length && buffer.length < CHUNK_BYTES) {
      buffer = new Uint8Array(CHUNK_BYTES);
      words = new Uint32Array(buffer.buffer);
    }
    if (bytes >= COUNT_MAX_BYTES && collector.isDone(line)) {
      return {
        kind: "text",
        ...collector.result(),
        lines: line - 1,
        chars,
        bytes,
        complete: false,
      };
    }
  }
  if (bytes === 0) return { kind: "empty" };
  chars += decoder.decode().length;
  collector.finish();
  const lines = lastByte === 0x0a ? line - 1 : line;
  return { kind: "text", ...collector.result(), lines, chars, bytes, complete: true };
}

/**
 * Counts `\n` bytes a 32-bit word at a time (a word holds a newline when `x ^ 0x0a0a0a0a` has a
 * zero byte), which is several times faster than a byte loop; also tells whether all bytes are
 * ASCII, so such chunks need no decoding to count characters.
 */
function countNewlines(
  words: Uint32Array,
  chunk: Uint8Array,
): { newlines: number; isAscii: boolean } {
  let newlines = 0;
  let high = 0;
  const wordCount = chunk.length >>> 2;
  for (let i = 0; i < wordCount; i++) {
    const x = words[i]! ^ 0x0a0a0a0a;
    // XOR with 0x0a leaves bit 7 of each byte as it was, so x serves the ASCII test too.
    high |= x;
    if (((x - 0x01010101) & ~x & 0x80808080) !== 0) {
      if ((x & 0xff) === 0) newlines++;
      if ((x & 0xff00) === 0) newlines++;
      if ((x & 0xff0000) === 0) newlines++;
      if ((x & 0xff000000) === 0) newlines++;
    }
  }
  for (let i = wordCount << 2; i < chunk.length; i++) {
    const byte = chunk[i]!;
    high |= byte;
    if (byte === 0x0a) newlines++;
  }
  return { newlines, isAscii: (high & 0x80808080) === 0 };
}

/** Gathers the window's lines from the chunks that hold them. */
class WindowCollector {
  readonly #request: WindowRequest;
  readonly #lines: string[] = [];
  /** Bytes of the line being gathered, kept up to what can be shown. */
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  /** The line the gathered bytes belong to. */
  #partLine = 0;
  #usedChars = 0;
  #last: number;
  #crlf = false;
  #cutByBudget = false;

  constructor(request: WindowRequest) {
    this.#request = request;
    this.#last = request.last;
  }

  /** Whether a chunk spanning lines `from`..`to` holds part of the window. */
  wants(from: number, to: number): boolean {
    return from <= this.#last && to >= this.#request.first;
  }

  /** Whether every window line has been gathered by the time line `line` starts. */
  isDone(line: number): boolean {
    return line > this.#last;
  }

  /** Gathers the window's part of a chunk whose first byte belongs to line `line`. */
  take(chunk: Uint8Array, line: number): void {
    let at = 0;
    while (at < chunk.length && line <= this.#last) {
      const newline = chunk.indexOf(0x0a, at);
      const end = newline === -1 ? chunk.length : newline;
      if (line >= this.#request.first) this.#append(chunk.subarray(at, end), line);
      if (newline === -1) return;
      if (line >= this.#request.first) this.#endLine(line);
      line++;
      at = newline + 1;
    }
  }

  /** Ends a last line that has no newline after it. */
  finish(): void {
    if (this.#parts.length > 0) this.#endLine(this.#partLine);
  }

  /** The lines gathered, with what the header needs to say about them. */
  result(): { window: string[]; crlf: boolean; cutByBudget: boolean } {
    return { window: this.#lines, crlf: this.#crlf, cutByBudget: this.#cutByBudget };
  }

  #append(bytes: Uint8Array, line: number): void {
    this.#partLine = line;
    // Four bytes per character at most: enough to show MAX_LINE_CHARS, and a bound on memory.
    const room = MAX_LINE_CHARS * 4 + 1 - this.#partBytes;
    if (room <= 0) return;
    // The chunk buffer is reused for the next read, so the bytes are copied.
    const kept = bytes.slice(0, room);
    this.#parts.push(kept);
    this.#partBytes += kept.length;
  }

  #endLine(line: number): void {
    const joined = new Uint8Array(this.#parts.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of this.#parts) {
      joined.set(part, at);
      at += part.length;
    }
    this.#parts = [];
    this.#partBytes = 0;
    let text = new TextDecoder().decode(joined);
    if (text.endsWith("\r")) {
      text = text.slice(0, -1);
      this.#crlf = true;
    }
    if (text.length > MAX_LINE_CHARS) {
      text = `${text.slice(0, MAX_LINE_CHARS)} ... (line cut after ${MAX_LINE_CHARS} chars)`;
    }
    const cost = text.length + String(line).length + 2;
    if (this.#lines.length > 0 && this.#usedChars + cost > this.#request.budget) {
      this.#cutByBudget = true;
      this.#last = line - 1;
      return;
    }
    this.#usedChars += cost;
    this.#lines.push(text);
  }
}
