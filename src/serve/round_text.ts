/**
 * The answer text of a turn as a chat completion carries it: a model that writes in several
 * rounds ("Reading the file." … tool calls … "It says hi.") is read as one message, so each
 * round's text starts a new paragraph instead of running on from the last.
 * @module
 */
import type { TurnEvent } from "../ui/events.ts";

/** Put between the text of two rounds. */
const ROUND_BREAK = "\n\n";

/**
 * Joins a turn's text deltas, with a paragraph break where tool activity divides two rounds.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const text = new RoundText();
 * text.add({ type: "text", delta: "Calling a tool." });
 * text.add({ type: "tool_result", id: "1", name: "x", output: "", is_error: false, is_note: false });
 * assert.equal(text.add({ type: "text", delta: "Done." }), "\n\nDone.");
 * assert.equal(text.text, "Calling a tool.\n\nDone.");
 * ```
 */
export class RoundText {
  #text = "";
  #isNewRound = false;

  /** The text `event` adds to the answer (with any break before it), or null for none. */
  add(event: TurnEvent): string | null {
    if (event.type === "tool_call" || event.type === "tool_result") {
      // Only between rounds that both said something: no break before the first words.
      if (this.#text) this.#isNewRound = true;
      return null;
    }
    if (event.type !== "text" || !event.delta) return null;
    const delta = this.#isNewRound ? ROUND_BREAK + event.delta : event.delta;
    this.#isNewRound = false;
    this.#text += delta;
    return delta;
  }

  /** The answer so far. */
  get text(): string {
    return this.#text;
  }
}
