/**
 * The events an MCP HTTP session sent, kept so a client that lost a stream mid-call resumes it
 * (`GET` with `Last-Event-ID`) and still gets the call's result: MCP says a dropped connection
 * is no cancellation, so the call runs on and its result must stay reachable.
 * @module
 */
import type { JSONRPCMessage } from "./_sdk.ts";

/**
 * Bytes of events one session keeps (their JSON): the oldest go first. Enough for the progress,
 * log lines and result of the calls under way; a client that stays away longer than those take
 * to arrive resumes with what is left.
 */
const KEPT_BYTES = 1024 * 1024;

/** One sent event, in the order sent. */
interface KeptEvent {
  streamId: string;
  seq: number;
  message: JSONRPCMessage;
  bytes: number;
}

/**
 * The SDK's `EventStore` for one session: event ids are `<stream id>_<sequence>`, so the stream
 * of an id is known even after its events were dropped.
 */
export class SessionEvents {
  readonly #events: KeptEvent[] = [];
  #bytes = 0;
  #seq = 0;

  /** Keeps `message`, sent on `streamId`, and names it. */
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const bytes = JSON.stringify(message).length;
    this.#events.push({ streamId, seq: ++this.#seq, message, bytes });
    this.#bytes += bytes;
    while (this.#bytes > KEPT_BYTES && this.#events.length > 1) {
      this.#bytes -= this.#events.shift()!.bytes;
    }
    return Promise.resolve(`${streamId}_${this.#seq}`);
  }

  /** The stream `eventId` was sent on; undefined for an id this session never gave. */
  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId);
    return Promise.resolve(parsed && parsed.seq <= this.#seq ? parsed.streamId : undefined);
  }

  /** Sends again every kept event of `lastEventId`'s stream that came after it. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) {
      throw new SyntaxError(`Cannot resume after event "${lastEventId}": no such event id`);
    }
    const after = this.#events.filter((event) =>
      event.streamId === parsed.streamId && event.seq > parsed.seq
    );
    for (const event of after) await send(`${event.streamId}_${event.seq}`, event.message);
    return parsed.streamId;
  }
}

/**
 * The stream and sequence of an event id, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseEventId("a1-b2_7"), { streamId: "a1-b2", seq: 7 });
 * assert.equal(parseEventId("7"), null);
 * ```
 */
export function parseEventId(eventId: string): { streamId: string; seq: number } | null {
  const match = /^(.+)_(\d+)$/.exec(eventId);
  return match ? { streamId: match[1]!, seq: Number(match[2]) } : null;
}
