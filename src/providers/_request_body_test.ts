import assert from "node:assert/strict";
import { RequestBodies } from "./_request_body.ts";
import { toWireMessages } from "./_wire_format.ts";
import type { ChatMessage } from "./types.ts";

const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

const history: ChatMessage[] = [
  { role: "system", content: "You are replio." },
  { role: "user", content: 'Read "a.txt" — déjà vu\n' },
  {
    role: "assistant",
    content: null,
    reasoning: "read it",
    tool_calls: [{ id: "c1", type: "function", function: { name: "shot", arguments: "{}" } }],
  },
  {
    role: "tool",
    tool_call_id: "c1",
    name: "shot",
    content: "[image]",
    images: [{ mimeType: "image/png", data: "iVBO" }],
  },
  { role: "assistant", content: "It is a picture." },
];

Deno.test("RequestBodies.build sends what toWireMessages makes, with the other fields", () => {
  const bodies = new RequestBodies();
  const body = bodies.build(history, { model: "m", stream: true, tools: [{ type: "function" }] });
  assert.deepEqual(decode(body), {
    model: "m",
    stream: true,
    tools: [{ type: "function" }],
    messages: toWireMessages(history),
  });
  assert.deepEqual(decode(bodies.build([], {})), { messages: [] });
});

Deno.test("RequestBodies.build gives the same body for a history sent again and grown", () => {
  const bodies = new RequestBodies();
  const first = bodies.build(history.slice(0, 3), { model: "m" });
  assert.deepEqual(decode(first).messages, toWireMessages(history.slice(0, 3)));
  // The same message objects again, as the engine sends its history each round, plus new ones.
  const second = bodies.build(history, { model: "m" });
  assert.deepEqual(decode(second), { model: "m", messages: toWireMessages(history) });
  // A history rebuilt from copies (a compaction, a resume) is sent as it is now.
  const copies = history.map((message) => ({ ...message }));
  assert.deepEqual(decode(bodies.build(copies, { model: "m" })), decode(second));
});
