/**
 * Folds session records, in file order, into what a resumed session needs: the model history
 * (compaction honoured), the turn count, and the records that close a crashed turn.
 * @module
 */
import type { ChatMessage, Usage } from "../providers/types.ts";
import { pairToolResults } from "./pair_tool_results.ts";
import type { NewRecord, SessionRecord } from "./records.ts";

/** The text that introduces a compaction summary in the history. */
export const SUMMARY_PREFIX =
  "Summary of the conversation so far (earlier messages were compacted):";

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The message a compaction summary becomes in the history. It is a user message, not a system
 * one: several chat templates reject a system message after the first.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(summaryMessage("We fixed the parser."), {
 *   role: "user",
 *   content: `${SUMMARY_PREFIX}\n\nWe fixed the parser.`,
 * });
 * ```
 */
export function summaryMessage(summary: string): ChatMessage {
  return { role: "user", content: `${SUMMARY_PREFIX}\n\n${summary}` };
}

/** The running state of one session, fed one record at a time. */
export class SessionState {
  /** Messages after the last compaction, each with its index among all message records. */
  #kept: { index: number; message: ChatMessage }[] = [];
  #summary: string | null = null;
  #messageCount = 0;
  #turns = 0;
  #turnOpen = false;

  /** How many `message` records the session holds; compaction's `upto` counts these. */
  get messageCount(): number {
    return this.#messageCount;
  }

  /** The number of the last turn started (0 before the first). */
  get turns(): number {
    return this.#turns;
  }

  /** Takes one record into account. */
  apply(record: SessionRecord): void {
    switch (record.type) {
      case "message":
        this.#kept.push({ index: this.#messageCount++, message: record.message });
        break;
      case "compaction":
        this.#summary = record.summary;
        this.#kept = this.#kept.filter((entry) => entry.index > record.upto);
        break;
      case "turn_start":
        this.#turns = Math.max(this.#turns + 1, record.turn);
        this.#turnOpen = true;
        break;
      case "turn_end":
        this.#turnOpen = false;
        break;
    }
  }

  /**
   * The history the model continues from: the last summary, then the messages after it, with
   * every tool call answered (a crash can leave one without its result).
   */
  history(): ChatMessage[] {
    const { messages } = pairToolResults(this.#kept.map((entry) => entry.message));
    return this.#summary === null ? messages : [summaryMessage(this.#summary), ...messages];
  }

  /**
   * Records that make a crashed file whole again, to write before anything else on resume:
   * synthetic results for unanswered calls, then an `error` and a `turn_end` for an open turn.
   */
  repairs(): NewRecord[] {
    const { interrupted } = pairToolResults(this.#kept.map((entry) => entry.message));
    const records: NewRecord[] = interrupted.map((message) => ({ type: "message", message }));
    if (this.#turnOpen) {
      records.push(
        {
          type: "error",
          code: "interrupted",
          message: `Turn ${this.#turns} did not finish: the process stopped before it ended`,
        },
        { type: "turn_end", status: "error", usage: NO_USAGE },
      );
    }
    return records;
  }
}
