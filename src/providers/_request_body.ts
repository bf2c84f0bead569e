/**
 * Chat request bodies built from each message's JSON bytes, kept per message, and grown in place
 * round by round. Every request sends the whole history again; serialising and encoding all of it
 * anew each round made a round cost more the longer the session: over 1,000 rounds a third of
 * replio's CPU, and most of the garbage behind its memory growth (bench/scale_session_length.ts,
 * issue 26). A message's bytes are made once, when it is first sent; a request whose messages
 * start with the last request's adds only the new ones to the last body.
 * @module
 */
import type { ToolSchema } from "../tools/types.ts";
import { toWireMessage, toWireTool, wireEntries } from "./_wire_format.ts";
import type { ChatMessage } from "./types.ts";

/** What one request sends. */
export interface RequestContent {
  messages: readonly ChatMessage[];
  /** The tools offered; none leaves the field out. */
  tools: readonly ToolSchema[];
  /** Every other field of the body (model, stream, sampling settings). */
  fields: Record<string, unknown>;
}

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");
const MESSAGES_END = encoder.encode("]}");
/** The first body's room; it doubles as the history grows, so growing costs O(1) a byte. */
const FIRST_CAPACITY = 64 * 1024;

/** The last body built: what it was built from, and its bytes up to (not with) the final `]}`. */
interface LastBody {
  head: string;
  messages: readonly ChatMessage[];
  buffer: Uint8Array<ArrayBuffer>;
  length: number;
}

/**
 * Builds request bodies, growing the last one while a conversation goes on. History messages are
 * never changed once made (the engine appends new ones, and compaction makes a new history), so a
 * message's wire bytes are kept for as long as the message itself lives. The body returned is a
 * view of a buffer the next call writes again: hand it to `fetch`, which copies it at once, in
 * the same step.
 */
export class RequestBodies {
  readonly #bytes = new WeakMap<ChatMessage, Uint8Array>();
  /** The engine offers one tool list a turn, the same array each round: its JSON is kept. */
  readonly #tools = new WeakMap<readonly ToolSchema[], string>();
  #last: LastBody | null = null;

  /**
   * The JSON body: the fields, the tools, then the messages in wire format (as
   * `toWireMessages` sends them).
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * const bodies = new RequestBodies();
   * const messages = [{ role: "user" as const, content: "Hi" }];
   * const body = bodies.build({ messages, tools: [], fields: { model: "m", stream: true } });
   * assert.deepEqual(JSON.parse(new TextDecoder().decode(body)), {
   *   model: "m",
   *   stream: true,
   *   messages: [{ role: "user", content: "Hi" }],
   * });
   * ```
   */
  build({ messages, tools, fields }: RequestContent): Uint8Array<ArrayBuffer> {
    const head = this.#head(fields, tools);
    const last = this.#grown(messages, head) ?? this.#started(head);
    const entries = wireEntries(messages.slice(last.messages.length));
    for (const [index, entry] of entries.entries()) {
      if (index > 0 || last.messages.length > 0) this.#write(last, COMMA);
      this.#write(
        last,
        "message" in entry ? this.#wire(entry.message) : encoder.encode(JSON.stringify(entry.wire)),
      );
    }
    // A copy: the caller's array may grow in place (the body must not think it sent those).
    last.messages = [...messages];
    this.#last = last;
    // The end is written past the length: the next request's messages go where it stands.
    this.#write(last, MESSAGES_END);
    last.length -= MESSAGES_END.length;
    return last.buffer.subarray(0, last.length + MESSAGES_END.length);
  }

  /** The last body, when `messages` continue its messages under the same fields; else null. */
  #grown(messages: readonly ChatMessage[], head: string): LastBody | null {
    const last = this.#last;
    if (!last || last.head !== head || last.messages.length > messages.length) return null;
    for (let i = 0; i < last.messages.length; i++) {
      if (messages[i] !== last.messages[i]) return null;
    }
    // A tool result's images are sent after its run of results, in a message made for them: it
    // would have to move. Rare enough to build those bodies whole.
    for (let i = last.messages.length - 1; i < messages.length; i++) {
      const message = messages[i];
      if (message?.role === "tool" && message.images?.length) return null;
    }
    return last;
  }

  /** The body up to its messages' `[`: the fields, then the tools when there are any. */
  #head(fields: Record<string, unknown>, tools: readonly ToolSchema[]): string {
    const json = JSON.stringify(fields);
    const parts = json === "{}" ? [] : [json.slice(1, -1)];
    if (tools.length > 0) {
      let wire = this.#tools.get(tools);
      if (wire === undefined) {
        wire = JSON.stringify(tools.map(toWireTool));
        this.#tools.set(tools, wire);
      }
      parts.push(`"tools":${wire}`);
    }
    return `{${[...parts, `"messages":[`].join(",")}`;
  }

  #started(head: string): LastBody {
    const start = encoder.encode(head);
    // The last body was sent (fetch copies a body as it is called): its buffer is free again.
    const buffer = this.#last?.buffer ?? new Uint8Array(FIRST_CAPACITY);
    const body: LastBody = { head, messages: [], buffer, length: 0 };
    this.#write(body, start);
    return body;
  }

  #write(body: LastBody, bytes: Uint8Array): void {
    if (body.length + bytes.length > body.buffer.length) {
      const grown = new Uint8Array(Math.max(body.buffer.length * 2, body.length + bytes.length));
      grown.set(body.buffer.subarray(0, body.length));
      body.buffer = grown;
    }
    body.buffer.set(bytes, body.length);
    body.length += bytes.length;
  }

  #wire(message: ChatMessage): Uint8Array {
    let bytes = this.#bytes.get(message);
    if (bytes === undefined) {
      bytes = encoder.encode(JSON.stringify(toWireMessage(message)));
      this.#bytes.set(message, bytes);
    }
    return bytes;
  }
}
