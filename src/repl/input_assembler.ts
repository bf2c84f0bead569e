/**
 * Multi-line input: a line ending in `\` continues on the next line, and a `"""` line opens a
 * block that runs to the line ending in `"""`. Lines go in one at a time; a whole message comes
 * out.
 * @module
 */

/** The result of feeding one line: the finished message, or a request for another line. */
export type Assembled = { done: true; text: string } | { done: false };

const BLOCK = '"""';

/**
 * Joins typed lines into messages.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const input = new InputAssembler();
 * assert.deepEqual(input.feed("first \\"), { done: false });
 * assert.deepEqual(input.feed("second"), { done: true, text: "first \nsecond" });
 * ```
 */
export class InputAssembler {
  #lines: string[] = [];
  #mode: "none" | "backslash" | "block" = "none";

  /** Whether a message is half-typed (the prompt should show continuation). */
  get continuing(): boolean {
    return this.#mode !== "none";
  }

  /** Takes one typed line. */
  feed(line: string): Assembled {
    if (this.#mode === "block") {
      const trimmed = line.trimEnd();
      if (!trimmed.endsWith(BLOCK)) {
        this.#lines.push(line);
        return { done: false };
      }
      const last = trimmed.slice(0, -BLOCK.length);
      if (last.trim()) this.#lines.push(last);
      return this.#finish();
    }
    if (this.#mode === "none" && line.trimStart().startsWith(BLOCK)) {
      const first = line.trimStart().slice(BLOCK.length);
      this.#mode = "block";
      if (first.trimEnd().endsWith(BLOCK)) {
        // `"""one line"""` opens and closes at once.
        this.#lines.push(first.trimEnd().slice(0, -BLOCK.length));
        return this.#finish();
      }
      if (first.trim()) this.#lines.push(first);
      return { done: false };
    }
    if (line.endsWith("\\") && !line.endsWith("\\\\")) {
      this.#lines.push(line.slice(0, -1));
      this.#mode = "backslash";
      return { done: false };
    }
    this.#lines.push(line);
    return this.#finish();
  }

  /** Drops a half-typed message (Ctrl-C). */
  reset(): void {
    this.#lines = [];
    this.#mode = "none";
  }

  #finish(): Assembled {
    const text = this.#lines.join("\n");
    this.reset();
    return { done: true, text };
  }
}
