/**
 * The worktree's input history as the REPL keeps it: read at start, each message appended in
 * order. In a worktree it cannot write (read-only, no grant) history stays in memory, said once.
 * @module
 */
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { appendHistory, historyPath, loadHistory } from "./history_file.ts";

/** How the history tells the person about trouble. */
export interface HistoryNotices {
  /** History is off for this REPL (said once). */
  off(message: string): void;
  /** One entry could not be saved. */
  error(message: string): void;
}

/** `.replio/history` of one worktree. */
export class InputHistory {
  readonly #file: string;
  readonly #notices: HistoryNotices;
  /** Appends run one after another; awaited before exit. */
  #writes: Promise<void> = Promise.resolve();
  #isOff = false;

  constructor(worktree: string, notices: HistoryNotices) {
    this.#file = historyPath(worktree);
    this.#notices = notices;
  }

  /** The last `size` entries, oldest first; [] when the file cannot be read. */
  async load(size: number): Promise<string[]> {
    try {
      return await loadHistory(this.#file, size);
    } catch (error) {
      if (!isAccessError(error)) throw error;
      this.#turnOff(error);
      return [];
    }
  }

  /** Appends one entry after those before it. */
  append(entry: string): void {
    if (this.#isOff) return;
    this.#writes = this.#writes.then(() => appendHistory(this.#file, entry))
      .catch((error) => {
        if (isAccessError(error)) this.#turnOff(error);
        else this.#notices.error(`Cannot save input history: ${error}`);
      });
  }

  /** Settles when every append so far is written. */
  written(): Promise<void> {
    return this.#writes;
  }

  #turnOff(error: Error): void {
    if (this.#isOff) return;
    this.#isOff = true;
    this.#notices.off(`history is off: ${describeAccessError(error)}`);
  }
}
