/**
 * The live view of a running command: its last few lines, handed to `ctx.progress` a few times
 * a second at most, so a 50 MB build log costs the renderer no more than a quiet one.
 * @module
 */

/** Lines shown live. */
export const LIVE_LINES = 8;
/** Milliseconds between two updates; the first comes this long after the first output. */
const LIVE_INTERVAL_MS = 250;
/** Characters of recent output kept to find the last lines in. */
const RECENT_CHARS = 8192;
/** Characters of one live line. */
const LINE_CHARS = 240;

/** Keeps the tail of a stream of output and reports it on a timer. */
export class LiveTail {
  #recent = "";
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    readonly report: (lines: readonly string[]) => void,
    readonly count = LIVE_LINES,
    readonly intervalMs = LIVE_INTERVAL_MS,
  ) {}

  /** Takes a chunk of output; nothing is split or reported until the timer fires. */
  push(text: string): void {
    if (this.#stopped || text === "") return;
    this.#recent = this.#recent.length + text.length > RECENT_CHARS * 2
      ? (this.#recent + text).slice(-RECENT_CHARS)
      : this.#recent + text;
    this.#timer ??= setTimeout(() => this.#flush(), this.intervalMs);
  }

  /** Stops reporting: the result follows. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** The last lines as a terminal shows them: a `\r` rewrites its line, colours dropped. */
  lines(): string[] {
    const lines = this.#recent.replace(/\n$/, "").split("\n").slice(-this.count);
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
