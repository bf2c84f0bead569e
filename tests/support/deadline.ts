/**
 * Waits for an event with a deadline only a hang reaches. A test waits for the thing itself (a
 * request, an exit, a file), never for a while: a busy machine makes it slower, never red. The
 * deadline exists so a hang fails the test with what was awaited, instead of holding the run
 * until the test runner's watchdog.
 * @module
 */

/**
 * A minute: no event these tests wait for takes that long, even with four busy loops on two
 * cores.
 */
export const HANG_MS = 60_000;

/** Options for {@link withDeadline} and {@link waitUntil}. */
export interface DeadlineOptions {
  /** Milliseconds before the wait fails; default {@link HANG_MS}. */
  ms?: number;
  /** Runs when the deadline passes, before the failure: kill the child that hangs. */
  onLate?: () => void;
}

/**
 * `promise`'s value, or a rejection naming `what` once the deadline passes.
 * @example
 * ```ts
 * import { withDeadline } from "./deadline.ts";
 * await withDeadline(Promise.resolve(1), "one");
 * ```
 */
export async function withDeadline<T>(
  promise: PromiseLike<T>,
  what: string,
  options: DeadlineOptions = {},
): Promise<T> {
  const ms = options.ms ?? HANG_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      options.onLate?.();
      reject(new Error(`Timed out after ${ms / 1000} s waiting for ${what}`));
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once `check` holds, checking again every few milliseconds, for state that announces
 * nothing (a process that ends, a file another process writes); rejects naming `what` at the
 * deadline.
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: DeadlineOptions = {},
): Promise<void> {
  const ms = options.ms ?? HANG_MS;
  const deadline = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > deadline) {
      options.onLate?.();
      throw new Error(`Timed out after ${ms / 1000} s waiting for ${what}`);
    }
    // The interval only sets how soon the state is seen, not whether: any value is correct.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
