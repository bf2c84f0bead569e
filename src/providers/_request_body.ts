/**
 * Chat request bodies built from each message's JSON bytes, kept per message. Every request sends
 * the whole history again; serialising and encoding all of it anew each round made a round cost
 * more the longer the session: over 1,000 rounds a third of replio's CPU, and most of the garbage
 * behind its memory growth (bench/scale_session_length.ts, issue 26). A message's bytes are made
 * once, when it is first sent, and each body is those bytes copied together.
 * @module
 */
import { toWireMessage, wireEntries } from "./_wire_format.ts";
import type { ChatMessage } from "./types.ts";

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");
const MESSAGES_END = encoder.encode("]}");

/**
 * Builds request bodies for one provider. History messages are never changed once made (the
 * engine appends new ones, and compaction makes a new history), so a message's wire bytes are
 * kept for as long as the message itself lives.
 */
export class RequestBodies {
  readonly #bytes = new WeakMap<ChatMessage, Uint8Array>();

  /**
   * The JSON body: `fields`, then `messages` in wire format (as `toWireMessages` sends them).
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * const bodies = new RequestBodies();
   * const messages = [{ role: "user" as const, content: "Hi" }];
   * const body = bodies.build(messages, { model: "m", stream: true });
   * assert.deepEqual(JSON.parse(new TextDecoder().decode(body)), {
   *   model: "m",
   *   stream: true,
   *   messages: [{ role: "user", content: "Hi" }],
   * });
   * ```
   */
  build(
    messages: readonly ChatMessage[],
    fields: Record<string, unknown>,
  ): Uint8Array<ArrayBuffer> {
    const head = JSON.stringify(fields);
    const parts: Uint8Array[] = [
      encoder.encode(`${head.slice(0, -1)}${head === "{}" ? "" : ","}"messages":[`),
    ];
    for (const [index, entry] of wireEntries(messages).entries()) {
      if (index > 0) parts.push(COMMA);
      parts.push("message" in entry ? this.#wire(entry.message) : encode(entry.wire));
    }
    parts.push(MESSAGES_END);
    return concat(parts);
  }

  #wire(message: ChatMessage): Uint8Array {
    let bytes = this.#bytes.get(message);
    if (bytes === undefined) {
      bytes = encode(toWireMessage(message));
      this.#bytes.set(message, bytes);
    }
    return bytes;
  }
}

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}
