/**
 * A provider that plays back recorded assistant messages instead of asking a model: what
 * `replio replay` drives the real loop with. Each `chat()` yields the next recorded message of
 * the current turn (its reasoning, text and tool calls); a turn with nothing left to play ends
 * with an empty answer.
 * @module
 */
import type { ChatMessage, ChatRequest, Provider, ProviderEvent, ToolCall } from "./types.ts";

/** An assistant message as a session records it. */
export type RecordedReply = Extract<ChatMessage, { role: "assistant" }>;

/**
 * Plays recorded replies in order; {@link ReplayProvider.load} sets the next turn's replies.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const provider = new ReplayProvider("recorded");
 * provider.load([{ role: "assistant", content: "hi" }]);
 * const events = await Array.fromAsync(
 *   provider.chat({ messages: [], tools: [], signal: new AbortController().signal }),
 * );
 * assert.deepEqual(events, [{ type: "text", delta: "hi" }, { type: "done", reason: "stop" }]);
 * ```
 */
export class ReplayProvider implements Provider {
  readonly model: string;
  #replies: RecordedReply[] = [];

  constructor(model: string) {
    this.model = model;
  }

  /** The replies of the next turn, in the order the model gave them. */
  load(replies: RecordedReply[]): void {
    this.#replies = [...replies];
  }

  /** How many replies of the current turn were not played (the loop stopped early). */
  get unplayed(): number {
    return this.#replies.length;
  }

  /** The next recorded reply; the request itself is not looked at. */
  async *chat(_request: ChatRequest): AsyncIterable<ProviderEvent> {
    const reply = this.#replies.shift();
    if (!reply) {
      yield { type: "done", reason: "stop" };
      return;
    }
    if (reply.reasoning) yield { type: "thinking", delta: reply.reasoning };
    if (reply.content) yield { type: "text", delta: reply.content };
    const calls: ToolCall[] = reply.tool_calls ?? [];
    if (calls.length) yield { type: "tool_calls", calls };
    yield { type: "done", reason: calls.length ? "tool_calls" : "stop" };
  }

  /** Compaction, refinement and `ask → lead` are model calls a replay cannot make. */
  complete(): Promise<string> {
    return Promise.reject(
      new Error("Cannot consult a model during a replay: the recording has no such reply"),
    );
  }
}
