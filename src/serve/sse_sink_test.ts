import assert from "node:assert/strict";
import { SseSink } from "./sse_sink.ts";

Deno.test("SseSink writes each event in its wire shape and ends on close", async () => {
  const sink = new SseSink(() => assert.fail("not cancelled"));
  sink.emit({
    type: "tool_call",
    id: "c1",
    name: "file_read",
    arguments: { path: "a.txt" },
    activity: { glyph: "←", verb: "Read", key: "a.txt", params: {}, echo: false },
  });
  sink.emit({ type: "text", delta: "line one\nline two" });
  sink.close();
  sink.emit({ type: "note", message: "after close: dropped" });
  assert.equal(
    await new Response(sink.body).text(),
    'event: tool_call\ndata: {"type":"tool_call","id":"c1","name":"file_read","arguments":{"path":"a.txt"}}\n\n' +
      'event: text\ndata: {"type":"text","delta":"line one\\nline two"}\n\n',
  );
});

Deno.test("SseSink calls onCancel once when the reader goes away, then drops events", async () => {
  let cancels = 0;
  const sink = new SseSink(() => cancels++);
  await sink.body.cancel();
  sink.emit({ type: "text", delta: "nobody reads this" });
  sink.close();
  assert.equal(cancels, 1);
  assert.equal(await sink.ask(), null);
  assert.equal(await sink.confirm(), "no");
});
