/**
 * The last exchanges of a resumed session, so the person sees where the conversation stood
 * before typing the next message.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";
import { SUMMARY_PREFIX } from "../session/mod.ts";

/** One prompt and what the model answered to it. */
export interface Exchange {
  prompt: string;
  /** The assistant's text, joined across rounds. */
  answer: string;
  /** Tool calls made while answering. */
  toolCalls: number;
}

/**
 * The last `count` exchanges of a history (a compaction summary is not a prompt of the person's).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const history = [
 *   { role: "user" as const, content: "hi" },
 *   { role: "assistant" as const, content: "Hello." },
 * ];
 * assert.deepEqual(recentExchanges(history, 2), [{ prompt: "hi", answer: "Hello.", toolCalls: 0 }]);
 * ```
 */
export function recentExchanges(history: readonly ChatMessage[], count: number): Exchange[] {
  const exchanges: Exchange[] = [];
  for (const message of history) {
    if (message.role === "user" && !message.content.startsWith(SUMMARY_PREFIX)) {
      exchanges.push({ prompt: message.content, answer: "", toolCalls: 0 });
      continue;
    }
    const current = exchanges.at(-1);
    if (!current || message.role !== "assistant") continue;
    if (message.content) current.answer += (current.answer ? "\n\n" : "") + message.content;
    current.toolCalls += message.tool_calls?.length ?? 0;
  }
  return exchanges.slice(-count);
}
