/**
 * The serve renderer: each turn event as one server-sent event whose data is the stream-json
 * shape of the event (`toWire`), so SSE clients and `--output stream-json` read the same JSON.
 * @module
 */
import type { ConfirmAnswer, Sink, TurnEvent } from "../ui/events.ts";
import { toWire } from "../ui/stream_json.ts";

const encoder = new TextEncoder();

/** The headers of every server-sent event response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

/**
 * One event as SSE text: an `event:` line naming its type, a `data:` line with its JSON, and
 * the blank line that ends it. JSON escapes newlines, so the data is always one line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   formatServerSentEvent({ type: "text", delta: "hi" }),
 *   'event: text\ndata: {"type":"text","delta":"hi"}\n\n',
 * );
 * ```
 */
export function formatServerSentEvent(event: TurnEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(toWire(event))}\n\n`;
}

/**
 * A headless sink writing to an SSE response body: `confirm` declines (the policy's headless
 * answer decides first) and `ask` has no one to answer.
 */
export class SseSink implements Sink {
  /** The response body; it ends when {@link close} is called or the client goes away. */
  readonly body: ReadableStream<Uint8Array>;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #isOpen = true;

  /** `onCancel` runs once when the client goes away before the stream was closed. */
  constructor(onCancel: () => void) {
    this.body = new ReadableStream({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#isOpen = false;
        onCancel();
      },
    });
  }

  emit(event: TurnEvent): void {
    // After a disconnect the turn still winds down and saves; its last events have no reader.
    if (!this.#isOpen) return;
    this.#controller?.enqueue(encoder.encode(formatServerSentEvent(event)));
  }

  /** Ends the response after the last event. */
  close(): void {
    if (!this.#isOpen) return;
    this.#isOpen = false;
    this.#controller?.close();
  }

  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }

  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }
}
