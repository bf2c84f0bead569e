import assert from "node:assert/strict";
import { Config, type ConfigKey } from "../config/mod.ts";
import {
  type MockDialect,
  type MockModel,
  type MockTurn,
  startMockModel,
} from "../../tests/support/mock_model.ts";
import { collectEvents, HELLO, joinDeltas } from "../../tests/support/provider_events.ts";
import { createOpenAIProvider } from "./openai.ts";
import type { ChatMessage, Provider } from "./types.ts";

const KEY = "sk-test-0123456789abcdef";

function providerFor(
  mock: MockModel,
  config: Partial<Record<ConfigKey, unknown>> = {},
  apiKey = KEY,
): Provider {
  return createOpenAIProvider({
    config: Config.defaults().with(config),
    baseUrl: mock.baseUrl,
    model: "mock-model",
    apiKey,
  });
}

const TWO_CALLS: MockTurn["toolCalls"] = [
  { name: "read_file", arguments: { path: "src/a.ts", offset: 10 }, id: "call_a" },
  { name: "grep", arguments: { pattern: "needle", path: "." }, id: "call_b" },
];

const EXPECTED_CALLS = [
  {
    id: "call_a",
    type: "function",
    function: { name: "read_file", arguments: '{"path":"src/a.ts","offset":10}' },
  },
  {
    id: "call_b",
    type: "function",
    function: { name: "grep", arguments: '{"pattern":"needle","path":"."}' },
  },
];

Deno.test("OpenAIProvider.chat streams thinking and text, then usage and done", async () => {
  await using mock = startMockModel([{
    thinking: "Let me think.",
    text: "Hello there",
    usage: { prompt_tokens: 12, completion_tokens: 7 },
  }]);
  const events = await collectEvents(providerFor(mock));
  assert.ok(events.filter((e) => e.type === "text").length > 1, "text arrives in pieces");
  assert.deepEqual(joinDeltas(events), [
    { type: "thinking", delta: "Let me think." },
    { type: "text", delta: "Hello there" },
    { type: "usage", usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } },
    { type: "done", reason: "stop" },
  ]);
  assert.deepEqual(mock.violations, []);
});

Deno.test("OpenAIProvider.chat reads the `reasoning` delta field as thinking", async () => {
  await using mock = startMockModel([{ thinking: "Hmm", thinkingField: "reasoning", text: "Ok" }]);
  const events = joinDeltas(await collectEvents(providerFor(mock)));
  assert.deepEqual(events.slice(0, 2), [
    { type: "thinking", delta: "Hmm" },
    { type: "text", delta: "Ok" },
  ]);
});

Deno.test("OpenAIProvider.chat sends the configured settings and omits unset ones", async () => {
  await using mock = startMockModel([{ text: "a" }, { text: "b" }]);
  await collectEvents(providerFor(mock));
  await collectEvents(providerFor(mock, { temperature: 0.2, max_tokens: 300, reasoning: "high" }));
  const [plain, tuned] = mock.requests;
  assert.deepEqual(plain, {
    model: "mock-model",
    messages: HELLO,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.deepEqual(
    [tuned?.temperature, tuned?.max_tokens, tuned?.reasoning_effort],
    [0.2, 300, "high"],
  );
  assert.equal(mock.exchanges[0]?.authorization, `Bearer ${KEY}`);
});

Deno.test("OpenAIProvider.chat sends tools and keeps session-only fields out of messages", async () => {
  await using mock = startMockModel([{ text: "done" }]);
  const messages: ChatMessage[] = [
    { role: "user", content: "read it" },
    {
      role: "assistant",
      content: null,
      reasoning: "private notes",
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", name: "f", content: "result" },
  ];
  const tool = {
    type: "function" as const,
    function: { name: "f", description: "Does f", parameters: { type: "object" } },
  };
  const provider = providerFor(mock);
  for await (const _ of provider.chat({ messages, tools: [tool], signal: AbortSignal.any([]) })) {
    // drain
  }
  assert.deepEqual(mock.requests[0]?.messages, [
    { role: "user", content: "read it" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: "c1", content: "result" },
  ]);
  assert.deepEqual(mock.requests[0]?.tools, [tool]);
  assert.deepEqual(mock.violations, []);
});

for (const dialect of ["split", "whole", "no_index", "stop_after_calls"] satisfies MockDialect[]) {
  Deno.test(`OpenAIProvider.chat reassembles tool calls sent in the ${dialect} dialect`, async () => {
    await using mock = startMockModel([{ text: "Checking.", toolCalls: TWO_CALLS, dialect }]);
    const events = joinDeltas(await collectEvents(providerFor(mock)));
    assert.deepEqual(events.slice(0, 2), [
      { type: "text", delta: "Checking." },
      { type: "tool_calls", calls: EXPECTED_CALLS },
    ]);
    assert.deepEqual(events.at(-1), { type: "done", reason: "tool_calls" });
  });
}

Deno.test("OpenAIProvider.chat names calls that come without an id", async () => {
  await using mock = startMockModel([{
    toolCalls: [{ name: "a", id: null }, { name: "b", arguments: "", id: null }],
    dialect: "whole",
  }]);
  const events = await collectEvents(providerFor(mock));
  assert.deepEqual(events.find((e) => e.type === "tool_calls"), {
    type: "tool_calls",
    calls: [
      { id: "call_1", type: "function", function: { name: "a", arguments: "{}" } },
      { id: "call_2", type: "function", function: { name: "b", arguments: "{}" } },
    ],
  });
});

Deno.test("OpenAIProvider.chat keeps multibyte text intact across byte and event splits", async () => {
  const text = "héllo wörld 😀 日本語 🧪🧪";
  await using mock = startMockModel([
    { text, wireChunkBytes: 5 },
    { text, chunkSize: 1 },
  ]);
  for (let round = 0; round < 2; round++) {
    const deltas = (await collectEvents(providerFor(mock)))
      .flatMap((e) => e.type === "text" ? [e.delta] : []);
    assert.equal(deltas.join(""), text);
    assert.ok(deltas.every((d) => d.isWellFormed()), `a delta split a character: ${deltas}`);
  }
});

Deno.test("OpenAIProvider.complete returns the text of a non-streamed reply", async () => {
  await using mock = startMockModel([{ thinking: "ignored", text: "A summary." }]);
  const text = await providerFor(mock).complete(HELLO, AbortSignal.any([]));
  assert.equal(text, "A summary.");
  assert.equal(mock.requests[0]?.stream, false);
});
