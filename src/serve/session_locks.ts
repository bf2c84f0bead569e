/**
 * One turn at a time per session: two turns appending to one JSONL file would interleave their
 * records and each would resume from a history missing the other's.
 * @module
 */
import { HttpError } from "./http_error.ts";

/** The sessions with a turn running; different sessions never wait on each other. */
export class SessionLocks {
  readonly #busy = new Set<string>();

  /**
   * Marks `id` busy until the returned handle is disposed; a busy `id` is refused at once with
   * HttpError 409 rather than queued, so no client waits on a turn it cannot see.
   */
  acquire(id: string): Disposable {
    if (this.#busy.has(id)) {
      throw new HttpError(
        409,
        "session_busy",
        `Cannot start a turn in session "${id}": a turn is already running in it: ` +
          `wait for its turn_end, or use another session`,
      );
    }
    this.#busy.add(id);
    let released = false;
    return {
      [Symbol.dispose]: () => {
        if (released) return;
        released = true;
        this.#busy.delete(id);
      },
    };
  }
}
