import assert from "node:assert/strict";
import { readServerSentEvents, type ServerSentEvent } from "./_sse.ts";

/** A real byte stream delivering `text` in reads of `size` bytes. */
function bytesOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let start = 0;
  return new ReadableStream({
    pull(controller) {
      if (start >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(start, start + size));
      start += size;
    },
  });
}

async function eventsOf(text: string, size: number): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(bytesOf(text, size), () => {})) {
    events.push(event);
  }
  return events;
}

Deno.test("readServerSentEvents decodes characters split across reads", async () => {
  const stream = 'data: {"c":"é😀日"}\n\ndata: [DONE]\n\n';
  for (const size of [1, 2, 3, 5]) {
    assert.deepEqual(await eventsOf(stream, size), [
      { event: null, data: '{"c":"é😀日"}' },
      { event: null, data: "[DONE]" },
    ]);
  }
});

Deno.test("readServerSentEvents handles CRLF, comments, event names and multi-line data", async () => {
  const stream = ": keep-alive\r\n\r\nevent: error\r\ndata: a\r\ndata:b\r\n\r\ndata: last";
  for (const size of [1, 4, 1000]) {
    assert.deepEqual(await eventsOf(stream, size), [
      { event: "error", data: "a\nb" },
      { event: null, data: "last" },
    ]);
  }
});

Deno.test("readServerSentEvents reports every read and cancels the body when stopped", async () => {
  let reads = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("data: x\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const _ of readServerSentEvents(body, () => reads++)) break;
  assert.equal(reads, 1);
  assert.equal(cancelled, true);
});
