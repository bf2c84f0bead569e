/**
 * The retry policy of model requests: which failures get another attempt, how long to wait
 * (announced as a `retry` event first), and the one `error` event that ends a request for good.
 * @module
 */
import { type Failure } from "./_failures.ts";
import { retryDelayMs } from "./retry_delay.ts";
import type { ProviderEvent } from "./types.ts";

/** A server asking for a longer pause than this gets an error instead of a frozen prompt. */
const MAX_RETRY_WAIT_MS = 60_000;

/** Whether anything reached the caller during this request, which makes a retry unsafe. */
export interface Progress {
  hasYielded: boolean;
}

/** How {@link withRetries} judges and words failures. */
export interface RetryPolicy {
  /** Retries after the first attempt (config `max_retries`). */
  maxRetries: number;
  /** What a thrown error means; never throws. */
  classify(error: unknown): Failure;
  /** The final message of a request that failed after `attempts` attempts. */
  describe(failure: Failure, attempts: number): string;
}

const CANCELLED: ProviderEvent = { type: "done", reason: "cancelled" };

/**
 * Runs `attempt` until one succeeds, a failure is final, or `signal` aborts; never throws. A
 * failure is retried only when it is retryable, nothing was yielded yet, retries are left and the
 * wait is under a minute. An abort during the wait ends it at once with `done: cancelled`.
 */
export async function* withRetries(
  signal: AbortSignal,
  policy: RetryPolicy,
  attempt: (progress: Progress) => AsyncGenerator<ProviderEvent>,
): AsyncGenerator<ProviderEvent> {
  const progress: Progress = { hasYielded: false };
  for (let attempts = 1;; attempts++) {
    let failure: Failure;
    try {
      for await (const event of attempt(progress)) {
        // Deltas already parsed from the last read must not outlive a cancel.
        if (signal.aborted) break;
        if (event.type === "text" || event.type === "thinking") progress.hasYielded = true;
        yield event;
      }
      if (signal.aborted) yield CANCELLED;
      return;
    } catch (error) {
      if (signal.aborted) {
        yield CANCELLED;
        return;
      }
      failure = policy.classify(error);
    }
    const delay = failure.retryable && !progress.hasYielded && attempts <= policy.maxRetries
      ? retryDelayMs(attempts - 1, failure.headers)
      : null;
    if (delay === null || delay > MAX_RETRY_WAIT_MS) {
      yield { type: "error", code: failure.code, message: policy.describe(failure, attempts) };
      return;
    }
    yield {
      type: "retry",
      reason: failure.detail,
      delay_ms: delay,
      attempt: attempts + 1,
      attempts: policy.maxRetries + 1,
    };
    if (!(await pauseUnlessAborted(delay, signal))) {
      yield CANCELLED;
      return;
    }
  }
}

/** Waits `ms`; false when `signal` aborted first (at once, not at the end of the wait). */
function pauseUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const { promise, resolve } = Promise.withResolvers<boolean>();
  const onAbort = () => {
    clearTimeout(timer);
    resolve(false);
  };
  const timer = setTimeout(() => {
    signal.removeEventListener("abort", onAbort);
    resolve(true);
  }, ms);
  signal.addEventListener("abort", onAbort, { once: true });
  return promise;
}
