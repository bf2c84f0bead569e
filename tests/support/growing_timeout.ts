/**
 * For a test of a timeout itself. The timeout has to stop the part that hangs, and the part that
 * works has to finish before it, but how long that takes depends on the machine. A timeout short
 * enough to keep the test quick is too short on a busy machine, and one long enough for any
 * machine makes every run wait that long. So the test starts with 1 s. When a run shows the
 * timeout was too short (an outcome the test names exactly, such as "the command printed nothing
 * yet"), the test runs again with twice as long, until the total reaches the hang deadline. The
 * verdict never depends on the machine; only the number of runs does.
 * @module
 */
import { HANG_MS } from "./deadline.ts";

/** The run that counts, and the timeout in seconds it ran with. */
export interface TimedRun<T> {
  result: T;
  seconds: number;
}

/**
 * Runs `run(seconds)` with 1, 2, 4 … seconds until `tooShort` no longer matches its result, and
 * returns that run. `tooShort` names only the outcomes a correct program gives when the timeout
 * came early; any other result is returned for the test to assert on. Rejects naming `what` once
 * the timeouts add up to the hang deadline.
 * @example
 * ```ts
 * import { withGrowingTimeout } from "./growing_timeout.ts";
 * const { seconds } = await withGrowingTimeout("a second try", (s) => Promise.resolve(s), (s) => s < 2);
 * if (seconds !== 2) throw new Error("expected the second run");
 * ```
 */
export async function withGrowingTimeout<T>(
  what: string,
  run: (seconds: number) => Promise<T>,
  tooShort: (result: T, seconds: number) => boolean,
): Promise<TimedRun<T>> {
  let spentSeconds = 0;
  for (let seconds = 1;; seconds *= 2) {
    const result = await run(seconds);
    if (!tooShort(result, seconds)) return { result, seconds };
    spentSeconds += seconds;
    if (spentSeconds * 1000 >= HANG_MS) {
      throw new Error(
        `Timed out after ${spentSeconds} s of growing timeouts waiting for ${what}`,
      );
    }
  }
}
