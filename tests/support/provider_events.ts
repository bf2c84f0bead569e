/**
 * Running a provider to the end in a test: every event it yields, the error it ended with.
 * @module
 */
import assert from "node:assert/strict";
import type { ChatMessage, Provider, ProviderEvent } from "../../src/providers/types.ts";

/** The one-message conversation most provider tests send. */
export const HELLO: ChatMessage[] = [{ role: "user", content: "hi" }];

/** Every event of one `chat()` call, in order. */
export async function collectEvents(
  provider: Provider,
  signal = new AbortController().signal,
  messages = HELLO,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat({ messages, tools: [], signal })) events.push(event);
  return events;
}

/** Joins consecutive deltas of one kind, so assertions do not depend on chunking. */
export function joinDeltas(events: ProviderEvent[]): ProviderEvent[] {
  const out: ProviderEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if ((event.type === "text" || event.type === "thinking") && last?.type === event.type) {
      out[out.length - 1] = { type: event.type, delta: last.delta + event.delta };
    } else out.push(event);
  }
  return out;
}

/** The `error` event that ended `events`; fails the test when they did not end with one. */
export function errorOf(events: ProviderEvent[]): { code: string; message: string } {
  const last = events.at(-1);
  assert.equal(last?.type, "error", `expected an error event last, got ${JSON.stringify(last)}`);
  return { code: last.code, message: last.message };
}
