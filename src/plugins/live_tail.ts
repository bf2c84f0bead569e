/**
 * The live view of a running command: its last few lines, handed to `ctx.progress` a few times
 * a second at most, so a 50 MB build log costs the renderer no more than a quiet one.
 * @module
 */

/** Lines shown live. */
export const LIVE_LINES = 8;
/** Milliseconds between two updates; the first comes this long after the first output. */
const LIVE_INTERVAL_MS = 250;
/** Bytes of recent output kept to find the last lines in. */
const RECENT_BYTES = 8192;
/** Characters of one live line. */
const LINE_CHARS = 240;

/** Keeps the tail of a stream of output and reports it on a timer. */
export class LiveTail {
  #recent = new Uint8Array(0);
  /** Whether `#recent` starts mid-line (older bytes were dropped). */
  #cut = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    readonly report: (lines: readonly string[]) => void,
    readonly count = LIVE_LINES,
    readonly intervalMs = LIVE_INTERVAL_MS,
  ) {}

  /**
   * Takes a chunk of output; only its last bytes are kept, and nothing is decoded or split
   * until the timer fires.
   */
  push(chunk: Uint8Array): void {
    if (this.#stopped || chunk.length === 0) return;
    if (chunk.length >= RECENT_BYTES) {
      this.#recent = chunk.slice(chunk.length - RECENT_BYTES);
      this.#cut = true;
    } else {
      const keep = Math.min(this.#recent.length, RECENT_BYTES - chunk.length);
      const next = new Uint8Array(keep + chunk.length);
      next.set(this.#recent.subarray(this.#recent.length - keep));
      next.set(chunk, keep);
      if (keep < this.#recent.length) this.#cut = true;
      this.#recent = next;
    }
    this.#timer ??= setTimeout(() => this.#flush(), this.intervalMs);
  }

  /** Stops reporting: the result follows. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** The last lines as a terminal shows them: a `\r` rewrites its line, colours dropped. */
  lines(): string[] {
    let all = new TextDecoder().decode(this.#recent).replace(/\n$/, "").split("\n");
    // A first line cut by the byte window is not shown half.
    if (this.#cut && all.length > 1) all = all.slice(1);
    const lines = all.slice(-this.count);
    return lines.map((line) => {
      const shown = line.slice(line.lastIndexOf("\r") + 1)
        // deno-lint-ignore no-control-regex
        .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
      return shown.length > LINE_CHARS ? `${shown.slice(0, LINE_CHARS)}…` : shown;
    });
  }

  #flush(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    this.report(this.lines());
  }
}
