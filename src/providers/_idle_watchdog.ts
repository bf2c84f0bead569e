/**
 * An abort signal that fires when a stream stays silent too long.
 * @module
 */

/** Aborts `signal` once `timeoutMs` pass without a `touch()`; dispose to stop the timer. */
export class IdleWatchdog implements Disposable {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the stream last showed activity (`performance.now()`). */
  #touchedAt = 0;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.touch();
    this.#arm(timeoutMs);
  }

  /** Aborts when the watched stream has been silent too long. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the timeout fired. */
  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  /**
   * Records activity: the silence starts again from now. A time is noted, not a new timer set:
   * streams call this on every read, and a timer cleared and set each time was a measurable part
   * of a round's own CPU (bench/scale_session_length.ts).
   */
  touch(): void {
    this.#touchedAt = performance.now();
  }

  [Symbol.dispose](): void {
    clearTimeout(this.#timer);
  }

  /** Checks after `delayMs` whether the silence has lasted; if not, checks again when it would. */
  #arm(delayMs: number): void {
    this.#timer = setTimeout(() => {
      const silentMs = performance.now() - this.#touchedAt;
      if (silentMs >= this.#timeoutMs) this.#controller.abort();
      else this.#arm(this.#timeoutMs - silentMs);
    }, delayMs);
  }
}
