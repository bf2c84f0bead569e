/**
 * An abort signal that fires when a stream stays silent too long.
 * @module
 */

/** Aborts `signal` once `timeoutMs` pass without a `touch()`; dispose to stop the timer. */
export class IdleWatchdog implements Disposable {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.touch();
  }

  /** Aborts when the watched stream has been silent too long. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the timeout fired. */
  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Records activity: the silence starts again from now. */
  touch(): void {
    if (this.fired) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#controller.abort(), this.#timeoutMs);
  }

  [Symbol.dispose](): void {
    clearTimeout(this.#timer);
  }
}
