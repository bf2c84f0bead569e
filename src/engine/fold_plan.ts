/**
 * What a compaction folds: whole older turns, or, inside a long turn, the turn's older rounds.
 * Pure: it looks at the history only; the summary itself is compaction.ts's.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";
import { SUMMARY_PREFIX } from "../session/mod.ts";

/** How many of the most recent user turns a fold of whole turns keeps verbatim. */
export const KEPT_TURNS = 2;

/**
 * How many of the running turn's latest rounds (an assistant message and its tool results) a
 * fold inside the turn keeps verbatim. The model carries on from them: the file it just read,
 * the edit it just made, the test it just ran (a read, edit, test, fix cycle is four rounds).
 * Fewer would make it redo work the summary only names; more would cost every later request.
 */
export const KEPT_ROUNDS = 4;

/**
 * Rough characters per token (OpenAI's rule of thumb for English and code), for a history whose
 * provider reports no token counts or far too few.
 */
const CHARS_PER_TOKEN = 4;

/** Which messages a compaction replaces with a summary. */
export interface FoldPlan {
  /** Messages before this index are summarised (but `prompt`); the rest are kept. */
  cut: number;
  /**
   * The index (before `cut`) of the running turn's prompt, kept verbatim right after the summary
   * when the fold is inside a turn; null when whole turns are folded.
   */
  prompt: number | null;
}

/**
 * True for the message a compaction summary becomes (the first of a compacted history).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { summaryMessage } from "../session/mod.ts";
 * assert.equal(isSummary(summaryMessage("We fixed the parser.")), true);
 * assert.equal(isSummary({ role: "user", content: "fix the parser" }), false);
 * ```
 */
export function isSummary(message: ChatMessage | undefined): boolean {
  return message?.role === "user" && message.content.startsWith(SUMMARY_PREFIX);
}

/**
 * The characters of `messages` a request carries as text: contents, reasoning, tool names and
 * call arguments. Summed anew each round: a few property reads a message, microseconds for
 * thousands of messages, and compaction keeps the history short.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(historyChars([{ role: "user", content: "abcd" }, { role: "assistant", content: null }]), 4);
 * ```
 */
export function historyChars(messages: readonly ChatMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars += message.content?.length ?? 0;
    if (message.role === "tool") chars += message.name.length;
    if (message.role !== "assistant") continue;
    chars += message.reasoning?.length ?? 0;
    for (const call of message.tool_calls ?? []) {
      chars += call.function.name.length + call.function.arguments.length;
    }
  }
  return chars;
}

/**
 * The prompt tokens the next request takes, as far as compaction is concerned: what the provider
 * reported for the last request, or the history's characters at 4 a token when that is more.
 * The estimate counts only the history (not the system prompt or the tool schemas), so it is
 * a floor: it never overrides an honest count, only a missing one (`usage` null) or one far
 * too low (a server that always reports the same number). It also counts the round's new tool
 * results, which the last reported count had not seen.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const history = [{ role: "user" as const, content: "x".repeat(4000) }];
 * assert.equal(promptTokenEstimate(null, history), 1000);
 * assert.equal(promptTokenEstimate(100, history), 1000);
 * assert.equal(promptTokenEstimate(5000, history), 5000);
 * ```
 */
export function promptTokenEstimate(
  reported: number | null,
  history: readonly ChatMessage[],
): number {
  return Math.max(reported ?? 0, Math.ceil(historyChars(history) / CHARS_PER_TOKEN));
}

/**
 * What to fold from `history` (`tokens` big, to be brought well under `roomTokens`): the turns
 * before the last {@link KEPT_TURNS} when what those keep fits `roomTokens`; else, when the
 * running turn (from the last user message) has more than {@link KEPT_ROUNDS} rounds, everything
 * before its last rounds but its prompt; else whole turns if there are any to fold; else null.
 * A cut falls on a user or an assistant message, so tool results always stay with their call.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const call = (id: string) => ({ id, type: "function" as const, function: { name: "ls", arguments: "{}" } });
 * const round = (id: string) => [
 *   { role: "assistant" as const, content: null, tool_calls: [call(id)] },
 *   { role: "tool" as const, tool_call_id: id, name: "ls", content: "a" },
 * ];
 * const history = [{ role: "user" as const, content: "go" }, ...["1", "2", "3", "4", "5", "6"].flatMap(round)];
 * assert.deepEqual(planFold(history, { tokens: 900, roomTokens: 400 }), { cut: 5, prompt: 0 });
 * assert.equal(planFold(history.slice(0, 9), { tokens: 900, roomTokens: 400 }), null);
 * ```
 */
export function planFold(
  history: readonly ChatMessage[],
  budget: { tokens: number; roomTokens: number },
): FoldPlan | null {
  // A summary from an earlier compaction is folded into the new one; it starts no turn.
  const start = isSummary(history[0]) ? 1 : 0;
  const prompts: number[] = [];
  for (let i = start; i < history.length; i++) {
    if (history[i]!.role === "user") prompts.push(i);
  }
  const turns: FoldPlan | null = prompts.length > KEPT_TURNS
    ? { cut: prompts[prompts.length - KEPT_TURNS]!, prompt: null }
    : null;
  if (turns && keptTokens(history, turns.cut, budget.tokens) <= budget.roomTokens) return turns;
  const prompt = prompts.at(-1) ?? null;
  const rounds: number[] = [];
  for (let i = (prompt ?? start - 1) + 1; i < history.length; i++) {
    if (history[i]!.role === "assistant") rounds.push(i);
  }
  if (rounds.length > KEPT_ROUNDS) return { cut: rounds[rounds.length - KEPT_ROUNDS]!, prompt };
  return turns;
}

/** The share of `tokens` the messages from `cut` on stand for, by their characters. */
function keptTokens(history: readonly ChatMessage[], cut: number, tokens: number): number {
  const all = historyChars(history);
  return all === 0 ? 0 : tokens * historyChars(history.slice(cut)) / all;
}
