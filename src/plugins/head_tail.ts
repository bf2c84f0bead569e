/**
 * Long output kept in bounded memory: its first and last lines with an exact count of those
 * dropped between them, long lines cut, progress bars (a `\r` without a newline) collapsed.
 * @module
 */

/** Lines kept from the start of long output: how the command began (what it ran, warnings). */
export const HEAD_LINES = 100;
/** Lines kept from the end of long output: errors and summaries land last. */
export const TAIL_LINES = 100;
/**
 * Characters kept of one line; with the head and tail sizes this keeps a full result under the
 * default `tool_max_result_chars`, so the registry's cap never cuts the tail off.
 */
export const MAX_LINE_CHARS = 400;

/** The index of the `n`-th line feed from the end of `bytes`, or -1. */
export function nthNewlineFromEnd(bytes: Uint8Array, n: number): number {
  let at = bytes.length;
  for (let i = 0; i < n; i++) {
    at = at === 0 ? -1 : bytes.lastIndexOf(10, at - 1);
    if (at === -1) return -1;
  }
  return at;
}

/** Line feeds among the first `end` bytes. */
export function countNewlines(bytes: Uint8Array, end: number): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at !== -1 && at < end; at = bytes.indexOf(10, at + 1)) {
    count++;
  }
  return count;
}

/** The marker between head and tail, e.g. `... (1234 lines omitted) ...`. */
function omittedMarker(count: number): string {
  return `... (${count} ${count === 1 ? "line" : "lines"} omitted) ...`;
}

/** Head and tail of some text, as {@link keepHeadTail} returns them. */
export interface HeadTail {
  text: string;
  omittedLines: number;
}

/**
 * Keeps the first `headLines` and last `tailLines` lines of `text` with a marker counting the
 * lines dropped between them; long lines are cut to {@link MAX_LINE_CHARS}, and a carriage
 * return without a newline keeps only what follows it, as a terminal shows progress bars.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(keepHeadTail("1\n2\n3\n4\n5\n", { headLines: 1, tailLines: 2 }), {
 *   text: "1\n... (2 lines omitted) ...\n4\n5",
 *   omittedLines: 2,
 * });
 * ```
 */
export function keepHeadTail(
  text: string,
  { headLines = HEAD_LINES, tailLines = TAIL_LINES }: { headLines?: number; tailLines?: number } =
    {},
): HeadTail {
  const lines = new LineCollector(headLines, tailLines);
  lines.push(text);
  return lines.finish();
}

/** Streams text in and keeps head, tail and counts in bounded memory, whatever the volume. */
export class LineCollector {
  readonly #head: string[] = [];
  readonly #tail: string[] = [];
  #omitted = 0;
  #pending = "";
  #pendingExtra = 0;
  /** A chunk ending in `\r` may continue with `\n`: decide when the next chunk arrives. */
  #heldReturn = false;
  /** Shown lines cut at {@link MAX_LINE_CHARS}: in the head, and per tail line. */
  #headCut = 0;
  readonly #tailCut: boolean[] = [];

  constructor(
    readonly headLines: number,
    readonly tailLines: number,
    readonly note: (omitted: number, firstOmitted: number, total: number) => string = omittedMarker,
  ) {}

  push(text: string): void {
    if (this.#heldReturn) {
      text = "\r" + text;
      this.#heldReturn = false;
    }
    if (text.endsWith("\r")) {
      text = text.slice(0, -1);
      this.#heldReturn = true;
    }
    const separator = /\r\n|\n|\r/g;
    let from = 0;
    for (const match of text.matchAll(separator)) {
      this.#append(text.slice(from, match.index));
      from = match.index + match[0].length;
      if (match[0] === "\r") this.#clearPending();
      else this.#commit();
    }
    this.#append(text.slice(from));
  }

  /** Whether every further line goes to the tail. */
  isHeadFull(): boolean {
    return this.#head.length >= this.headLines;
  }

  /**
   * Takes `commits` lines without their text (the head is full, and as many lines follow
   * as the tail holds): they and the tail so far are omitted, the line in progress with them.
   */
  skip(commits: number): void {
    this.#omitted += this.#tail.length + commits;
    this.#tail.length = 0;
    this.#tailCut.length = 0;
    this.#clearPending();
    this.#heldReturn = false;
  }

  /** Lines shown cut at {@link MAX_LINE_CHARS} (call after {@link finish}). */
  cutLines(): number {
    return this.#headCut + this.#tailCut.filter(Boolean).length;
  }

  finish(): HeadTail {
    if (this.#pending !== "" || this.#pendingExtra > 0) this.#commit();
    const kept = this.#omitted > 0
      ? [
        ...this.#head,
        this.note(
          this.#omitted,
          this.#head.length + 1,
          this.#head.length + this.#omitted + this.#tail.length,
        ),
        ...this.#tail,
      ]
      : [...this.#head, ...this.#tail];
    return { text: kept.join("\n"), omittedLines: this.#omitted };
  }

  #append(segment: string): void {
    const room = MAX_LINE_CHARS - this.#pending.length;
    if (segment.length <= room) {
      this.#pending += segment;
    } else {
      this.#pending += segment.slice(0, Math.max(room, 0));
      this.#pendingExtra += segment.length - Math.max(room, 0);
    }
  }

  #clearPending(): void {
    this.#pending = "";
    this.#pendingExtra = 0;
  }

  #commit(): void {
    const isCut = this.#pendingExtra > 0;
    const line = isCut
      ? `${this.#pending} ... (${this.#pendingExtra} chars omitted)`
      : this.#pending;
    this.#clearPending();
    if (this.#head.length < this.headLines) {
      this.#head.push(line);
      if (isCut) this.#headCut++;
      return;
    }
    this.#tail.push(line);
    this.#tailCut.push(isCut);
    if (this.#tail.length > this.tailLines) {
      this.#tail.shift();
      this.#tailCut.shift();
      this.#omitted++;
    }
  }
}
