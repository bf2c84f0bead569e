/**
 * The provider invariant on a rebuilt history: every assistant tool call is followed by exactly
 * one result with its id, before the next user or assistant message.
 * @module
 */
import type { ChatMessage, ToolCall } from "../providers/types.ts";

/** The result given to a tool call whose result never reached the session file. */
export const INTERRUPTED_RESULT =
  "Error: interrupted (the session ended before this tool finished)";

/** A history the provider accepts, and the synthetic results added at its end. */
export interface PairedHistory {
  messages: ChatMessage[];
  /** Results made up for the calls of the last assistant message (a crash mid-turn). */
  interrupted: ChatMessage[];
}

/**
 * Gives every unanswered tool call a synthetic {@link INTERRUPTED_RESULT} and drops results
 * that answer no pending call (a duplicate, or one whose call was compacted away).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const call = { id: "c1", type: "function" as const, function: { name: "ls", arguments: "{}" } };
 * const { messages, interrupted } = pairToolResults([
 *   { role: "user", content: "list" },
 *   { role: "assistant", content: null, tool_calls: [call] },
 * ]);
 * assert.equal(messages.length, 3);
 * assert.deepEqual(interrupted, [
 *   { role: "tool", tool_call_id: "c1", name: "ls", content: INTERRUPTED_RESULT },
 * ]);
 * ```
 */
export function pairToolResults(history: readonly ChatMessage[]): PairedHistory {
  const messages: ChatMessage[] = [];
  let pending = new Map<string, ToolCall>();
  const answerPending = (): ChatMessage[] => {
    const made = [...pending.values()].map((call): ChatMessage => ({
      role: "tool",
      tool_call_id: call.id,
      name: call.function.name,
      content: INTERRUPTED_RESULT,
    }));
    messages.push(...made);
    pending = new Map();
    return made;
  };
  for (const message of history) {
    if (message.role === "tool") {
      if (pending.delete(message.tool_call_id)) messages.push(message);
      continue;
    }
    answerPending();
    messages.push(message);
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) pending.set(call.id, call);
    }
  }
  return { messages, interrupted: answerPending() };
}
