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
  const tools = [{
    type: "function" as const,
    function: { name: "read", description: "Reads", parameters: { type: "object" } },
    // What a registry adds stays out of the request.
    category: "read",
  }];
  const body = bodies.build({ messages: history, tools, fields: { model: "m", stream: true } });
  assert.deepEqual(decode(body), {
    model: "m",
    stream: true,
    tools: [{
      type: "function",
      function: { name: "read", description: "Reads", parameters: { type: "object" } },
    }],
    messages: toWireMessages(history),
  });
  assert.deepEqual(decode(bodies.build({ messages: [], tools: [], fields: {} })), {
    messages: [],
  });
});

Deno.test("RequestBodies.build gives the same body for a history sent again and grown", () => {
  const bodies = new RequestBodies();
  const build = (messages: ChatMessage[]) =>
    bodies.build({ messages, tools: [], fields: { model: "m" } });
  const first = build(history.slice(0, 3));
  assert.deepEqual(decode(first).messages, toWireMessages(history.slice(0, 3)));
  // The same message objects again, as the engine sends its history each round, plus new ones.
  const second = build(history);
  assert.deepEqual(decode(second), { model: "m", messages: toWireMessages(history) });
  // A history rebuilt from copies (a compaction, a resume) is sent as it is now.
  const copies = history.map((message) => ({ ...message }));
  assert.deepEqual(decode(build(copies)), { model: "m", messages: toWireMessages(history) });
});

Deno.test("RequestBodies.build grows one body round by round and starts again when it must", () => {
  const bodies = new RequestBodies();
  const fields = { model: "m", stream: true };
  const expect = (messages: ChatMessage[], given = fields) =>
    assert.deepEqual(decode(bodies.build({ messages, tools: [], fields: given })), {
      ...given,
      messages: toWireMessages(messages),
    });
  const rounds: ChatMessage[] = [history[0]!, history[1]!];
  expect(rounds);
  // Rounds well past the first buffer's room, each adding a call and its result.
  for (let round = 0; round < 300; round++) {
    const id = `call_${round}`;
    rounds.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "file_read", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: id, name: "file_read", content: `é€ ${"x".repeat(400)}` },
    );
    expect([...rounds]);
  }
  expect([...rounds]); // a retry sends the same body
  expect([...rounds], { ...fields, stream: false }); // other fields: built whole
  expect([...rounds, history[3]!, history[4]!]); // a result with images: built whole
  expect([...rounds, history[3]!, history[4]!, { role: "user", content: "more" }]);
  expect([history[0]!, { role: "user", content: "Summary" }, ...rounds.slice(-4)]); // compacted
  expect([]);
});
