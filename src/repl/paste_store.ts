/**
 * Multi-line text in a one-line editor: a paste (or a recalled multi-line entry) stands in the
 * line as a short placeholder such as `[paste #1: 12 lines]` and is expanded when the line is
 * sent, so pasted text arrives as one message and never as one message per line.
 * @module
 */

/**
 * Placeholders and the text they stand for, for the REPL's lifetime.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const pastes = new PasteStore();
 * const placeholder = pastes.add("a\nb");
 * assert.equal(placeholder, "[paste #1: 2 lines]");
 * assert.equal(pastes.expand(`see ${placeholder}`), "see a\nb");
 * ```
 */
export class PasteStore {
  readonly #texts = new Map<string, string>();

  /** Registers `text` and returns its placeholder; the same text gets the same placeholder. */
  add(text: string): string {
    for (const [placeholder, known] of this.#texts) if (known === text) return placeholder;
    const lines = text.split("\n").length;
    const placeholder = `[paste #${this.#texts.size + 1}: ${lines} line${lines === 1 ? "" : "s"}]`;
    this.#texts.set(placeholder, text);
    return placeholder;
  }

  /** The line with every known placeholder replaced by its text. */
  expand(line: string): string {
    if (!line.includes("[paste #")) return line;
    return line.replace(/\[paste #\d+: \d+ lines?\]/g, (match) => this.#texts.get(match) ?? match);
  }

  /** How an entry shows in the one-line editor: multi-line text becomes its placeholder. */
  display(entry: string): string {
    return entry.includes("\n") ? this.add(entry) : entry;
  }
}
