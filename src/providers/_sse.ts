/**
 * Server-sent events from a byte stream, as chat completion streams send them.
 * @module
 */

/** One server-sent event: its `event:` name (null when absent) and its joined `data:` lines. */
export interface ServerSentEvent {
  event: string | null;
  data: string;
}

/**
 * Yields the events of an SSE body in order. UTF-8 sequences split across reads are decoded
 * whole; `onRead` runs after every network read with the bytes read (`undefined` at the end),
 * for idle timers and for showing a body that holds no events. Stopping early cancels the body.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
  onRead: (bytes: Uint8Array | undefined) => void,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let pending = "";
  let event: string | null = null;
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      onRead(value);
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A lone "\r" may be the first half of "\r\n": keep it until the next read shows.
      const lines = pending.split(/\r\n|\n|\r(?!$)/);
      pending = done ? "" : lines.pop() ?? "";
      if (done && lines.at(-1) === "") lines.pop();
      for (const line of lines) {
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n") };
          event = null;
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(value);
          else if (field === "event") event = value;
        }
      }
      if (done) break;
    }
    // Lenient with servers whose last event lacks the closing blank line.
    if (data.length > 0) yield { event, data: data.join("\n") };
  } finally {
    // Cancelling a body that already failed rejects again; the first failure was thrown above.
    await reader.cancel().catch(() => undefined);
  }
}
