/**
 * Warnings that arrive on their own, outside any command (an MCP server that fails after
 * start-up): written the usual way (stderr) until the REPL takes them over, then shown by the
 * REPL where they cannot cut into its prompt or an answer, and the usual way again after it.
 * @module
 */

/** Passes each warning to whoever shows warnings now. */
export class NoticeRelay {
  readonly #fallback: (message: string) => void;
  #show: ((message: string) => void) | null = null;

  /** `fallback` shows warnings while no REPL has taken them over. */
  constructor(fallback: (message: string) => void) {
    this.#fallback = fallback;
  }

  /**
   * Shows `message` through the REPL when one has taken over, else through the fallback.
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * const seen: string[] = [];
   * const relay = new NoticeRelay((m) => seen.push(`stderr: ${m}`));
   * relay.send("early");
   * relay.takeOver((m) => seen.push(`repl: ${m}`));
   * relay.send("late");
   * relay.takeOver(null);
   * relay.send("after");
   * assert.deepEqual(seen, ["stderr: early", "repl: late", "stderr: after"]);
   * ```
   */
  send(message: string): void {
    (this.#show ?? this.#fallback)(message);
  }

  /** From now on `show` shows the warnings; null hands them back to the fallback. */
  takeOver(show: ((message: string) => void) | null): void {
    this.#show = show;
  }
}
