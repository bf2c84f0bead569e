/**
 * The deadline of one MCP call (`tool_timeout`), paused while a person answers for it: a server
 * that asks the person to fill in a form, or to allow sampling, must not time out its own call
 * while the person reads and types.
 * @module
 */

/**
 * The longest delay a timer takes: a larger one overflows and fires at once. Given to the SDK
 * as its own request timeout, so only {@link CallDeadline} ends a call.
 */
export const NO_SDK_TIMEOUT_MS = 2 ** 31 - 1;

/** Aborts its signal with a `TimeoutError` once `ms` of unpaused time have passed. */
export class CallDeadline implements Disposable {
  readonly #controller = new AbortController();
  #remainingMs: number;
  #startedAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pauses = 0;

  constructor(ms: number) {
    this.#remainingMs = ms;
    this.#start();
  }

  /** Aborted (reason: a `TimeoutError` DOMException) when the time is up. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Runs `work` with the clock stopped; nested pauses resume when the outermost ends. */
  async paused<T>(work: () => Promise<T>): Promise<T> {
    if (this.#pauses++ === 0 && !this.signal.aborted) {
      clearTimeout(this.#timer);
      this.#remainingMs -= performance.now() - this.#startedAt;
    }
    try {
      return await work();
    } finally {
      if (--this.#pauses === 0 && !this.signal.aborted) this.#start();
    }
  }

  [Symbol.dispose](): void {
    clearTimeout(this.#timer);
  }

  #start(): void {
    this.#startedAt = performance.now();
    this.#timer = setTimeout(() => {
      this.#controller.abort(new DOMException("no answer in time", "TimeoutError"));
    }, Math.max(0, this.#remainingMs));
  }
}
