/**
 * The session's output store: full tool outputs kept on disk under an id (`o7`) when the model
 * only sees part of them, so `tool_output` can page or grep the rest. Files live in the
 * session's folder (`.replio/sessions/<id>/outputs/o7.txt`) within a disk budget
 * (`tool_output.max_mb`): the oldest outputs are removed first, and one output larger than the
 * whole budget keeps its first part only, saying so.
 * @module
 */
import { join } from "../fs/path.ts";

/** The key under which the host hands the store to tools (`ctx.services`). */
export const OUTPUT_STORE_SERVICE = "tool_outputs";

/** An output id: `o` and a number. */
const ID_PATTERN = /^o[1-9]\d*$/;
/** Bytes read at a time when paging or grepping a kept output. */
const READ_BYTES = 1 << 20;

/** What a kept output holds. */
export interface KeptOutput {
  id: string;
  /** Bytes kept on disk. */
  bytes: number;
  /** Lines kept: a last line without a line break counts. */
  lines: number;
  /** Bytes that did not fit in the disk budget and were not kept. */
  droppedBytes: number;
}

/** Options of {@link OutputStore}. */
export interface OutputStoreOptions {
  /** The folder holding the outputs; created on the first write. */
  dir: string;
  /** The disk budget of the folder, in bytes; 0 keeps nothing. */
  maxBytes: number;
  /** Runs once before the folder is first created (the host makes `.replio` private). */
  prepare?: () => void;
}

/** One output being written, chunk by chunk, as a command prints it. */
export class OutputWriter {
  readonly id: string;
  #file: Deno.FsFile | null;
  #bytes = 0;
  #newlines = 0;
  #lastByte = 10;
  #dropped = 0;
  readonly #encoder = new TextEncoder();

  constructor(id: string, file: Deno.FsFile | null, readonly maxBytes: number) {
    this.id = id;
    this.#file = file;
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends text; what would pass the budget is counted and dropped. */
  write(text: string): void {
    if (text !== "") this.writeBytes(this.#encoder.encode(text));
  }

  /** Appends bytes as they are (a command's output, written without decoding it). */
  writeBytes(data: Uint8Array): void {
    if (data.length === 0) return;
    const room = Math.max(0, this.maxBytes - this.#bytes);
    const kept = data.length <= room ? data : data.subarray(0, room);
    this.#dropped += data.length - kept.length;
    if (kept.length === 0 || this.#file === null) return;
    let written = 0;
    while (written < kept.length) written += this.#file.writeSync(kept.subarray(written));
    for (let at = kept.indexOf(10); at !== -1; at = kept.indexOf(10, at + 1)) this.#newlines++;
    this.#bytes += kept.length;
    this.#lastByte = kept[kept.length - 1]!;
  }

  /** Closes the file and returns what it holds. */
  close(): KeptOutput {
    this.#file?.close();
    this.#file = null;
    const lines = this.#newlines + (this.#lastByte === 10 ? 0 : 1);
    return { id: this.id, bytes: this.#bytes, lines, droppedBytes: this.#dropped };
  }
}

/** A page of a kept output. */
export interface OutputPage {
  /** 1-based number of the first line in `lines`. */
  first: number;
  lines: string[];
  /** Lines in the whole output. */
  total: number;
}

/** Matches of a pattern in a kept output. */
export interface OutputMatches {
  /** Line number and text of each match kept. */
  matches: [number, string][];
  /** Every matching line, kept or not. */
  count: number;
  /** Lines in the whole output. */
  total: number;
}

/** The outputs of one session. */
export class OutputStore {
  readonly dir: string;
  readonly maxBytes: number;
  readonly #prepare: (() => void) | undefined;
  #next: number | null = null;
  #prepared = false;

  constructor(options: OutputStoreOptions) {
    this.dir = options.dir;
    this.maxBytes = options.maxBytes;
    this.#prepare = options.prepare;
  }

  /**
   * Starts a new output. With a budget of 0 nothing is written, and the writer only counts.
   */
  create(): OutputWriter {
    if (this.maxBytes <= 0) return new OutputWriter(`o${this.#nextNumber()}`, null, 0);
    for (;;) {
      const id = `o${this.#nextNumber()}`;
      try {
        const file = Deno.openSync(this.#path(id), { write: true, createNew: true, mode: 0o600 });
        return new OutputWriter(id, file, this.maxBytes);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
        // Another store of the same session (`/tool` beside the agent) took the id: go on
        // after the highest one on disk.
        this.#next = Math.max(0, ...this.#listNumbers()) + 1;
      }
    }
  }

  /** Keeps `text` whole (within the budget) and returns its id and size. */
  save(text: string): KeptOutput {
    const writer = this.create();
    writer.write(text);
    return this.finish(writer);
  }

  /** Closes a writer and makes room for it by removing the oldest other outputs. */
  finish(writer: OutputWriter): KeptOutput {
    const kept = writer.close();
    this.#enforceBudget(writer.id);
    return kept;
  }

  /** Closes a writer and removes its file: the output was shown whole after all. */
  discard(writer: OutputWriter): void {
    writer.close();
    this.#remove(writer.id);
  }

  /** Whether output `id` is on disk. */
  has(id: string): boolean {
    if (!ID_PATTERN.test(id)) return false;
    try {
      return Deno.statSync(join(this.dir, `${id}.txt`)).isFile;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  /** Ids on disk, oldest first. */
  list(): string[] {
    return this.#listNumbers().map((n) => `o${n}`);
  }

  /** Lines `first` to `first + limit - 1` (1-based) and the total. */
  async page(id: string, first: number, limit: number): Promise<OutputPage> {
    const lines: string[] = [];
    const total = await this.#eachLine(id, (line, n) => {
      if (n >= first && lines.length < limit) lines.push(line);
    });
    return { first, lines, total };
  }

  /** The lines matching `regex`, the first `max` of them kept. */
  async grep(id: string, regex: RegExp, max: number): Promise<OutputMatches> {
    const matches: [number, string][] = [];
    let count = 0;
    const total = await this.#eachLine(id, (line, n) => {
      regex.lastIndex = 0;
      if (!regex.test(line)) return;
      count++;
      if (matches.length < max) matches.push([n, line]);
    });
    return { matches, count, total };
  }

  /** The absolute path of output `id`; an unknown id is an error saying which exist. */
  pathOf(id: string): string {
    if (!this.has(id)) {
      const known = this.list();
      throw new Deno.errors.NotFound(
        `No output "${id}" in this session: ` +
          (known.length === 0
            ? "none was kept (outputs are kept only when a result is cut)"
            : `the kept ones are ${known.join(", ")} (older ones may have been removed to ` +
              "stay within tool_output.max_mb)"),
      );
    }
    return join(this.dir, `${id}.txt`);
  }

  async #eachLine(id: string, onLine: (line: string, n: number) => void): Promise<number> {
    using file = await Deno.open(this.pathOf(id), { read: true });
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(READ_BYTES);
    let rest = "";
    let n = 0;
    for (;;) {
      const read = await file.read(buffer);
      if (read === null) break;
      const parts = (rest + decoder.decode(buffer.subarray(0, read), { stream: true })).split(
        "\n",
      );
      rest = parts.pop()!;
      for (const part of parts) onLine(part, ++n);
    }
    rest += decoder.decode();
    if (rest !== "") onLine(rest, ++n);
    return n;
  }

  #nextNumber(): number {
    if (this.#next === null) {
      this.#ensureDir();
      this.#next = Math.max(0, ...this.#listNumbers()) + 1;
    }
    return this.#next++;
  }

  #ensureDir(): void {
    if (this.#prepared) return;
    this.#prepare?.();
    Deno.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.#prepared = true;
  }

  #listNumbers(): number[] {
    const numbers: number[] = [];
    try {
      for (const entry of Deno.readDirSync(this.dir)) {
        const match = entry.isFile ? /^o([1-9]\d*)\.txt$/.exec(entry.name) : null;
        if (match) numbers.push(Number(match[1]));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return numbers.sort((a, b) => a - b);
  }

  /** Removes the oldest outputs other than `keep` until the folder fits the budget. */
  #enforceBudget(keep: string): void {
    const sizes = this.list().map((id) => {
      try {
        return { id, size: Deno.statSync(this.#path(id)).size };
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return { id, size: 0 };
        throw error;
      }
    });
    let total = sizes.reduce((sum, s) => sum + s.size, 0);
    for (const { id, size } of sizes) {
      if (total <= this.maxBytes) break;
      if (id === keep) continue;
      this.#remove(id);
      total -= size;
    }
  }

  #remove(id: string): void {
    try {
      Deno.removeSync(this.#path(id));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  #path(id: string): string {
    return join(this.dir, `${id}.txt`);
  }
}

/**
 * `1.2 MB`, `843 KB`, `512 B`: sizes in notes.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(formatBytes(1_234_567), "1.2 MB");
 * assert.equal(formatBytes(512), "512 B");
 * ```
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(1)} GB`;
}

/**
 * The line that stands for what the model did not see, e.g. `… 12,403 lines (1.2 MB) omitted,
 * lines 201–12,603: read them with tool_output(id="o7", offset=201) or grep them with
 * tool_output(id="o7", pattern="FAIL")`. Without the omitted bytes, the whole output's size is
 * given instead: `(of 12,803 lines, 1.3 MB in all)`.
 */
export function omittedNote(
  kept: { id: string },
  omitted: {
    lines: number;
    first: number;
    bytes?: number;
    total?: { lines: number; bytes: number };
  },
): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const last = omitted.first + omitted.lines - 1;
  const range = omitted.lines === 1
    ? `line ${n(omitted.first)}`
    : `lines ${n(omitted.first)}–${n(last)}`;
  const size = omitted.bytes !== undefined
    ? ` (${formatBytes(omitted.bytes)})`
    : omitted.total
    ? ` (of ${n(omitted.total.lines)} lines, ${formatBytes(omitted.total.bytes)} in all)`
    : "";
  return `… ${n(omitted.lines)} ${omitted.lines === 1 ? "line" : "lines"}${size} ` +
    `omitted, ${range}: read them with ` +
    `tool_output(id="${kept.id}", offset=${omitted.first}) or grep them with ` +
    `tool_output(id="${kept.id}", pattern="FAIL")`;
}
