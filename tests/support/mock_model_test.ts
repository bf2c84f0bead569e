import assert from "node:assert/strict";
import { join } from "node:path";
import type { ChatMessage } from "../../src/providers/types.ts";
import { findPairingViolations, type MockModel, startMockModel } from "./mock_model.ts";

const USER: ChatMessage[] = [{ role: "user", content: "hi" }];

function post(mock: MockModel, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${mock.baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: USER, ...body }),
  });
}

/** The data payloads of an SSE body, parsed, without `[DONE]`. */
function payloadsOf(sse: string): Record<string, unknown>[] {
  return sse.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) =>
    JSON.parse(e.slice(6))
  );
}

const call = (id: string, name = "f") => ({
  id,
  type: "function" as const,
  function: { name, arguments: "{}" },
});

Deno.test("startMockModel lists its models", async () => {
  await using mock = startMockModel([], { models: ["a", "b"] });
  const body = await (await fetch(`${mock.baseUrl}/models`)).json();
  assert.deepEqual(body.data.map((m: { id: string }) => m.id), ["a", "b"]);
});

Deno.test("startMockModel streams a turn as OpenAI SSE with usage and [DONE]", async () => {
  await using mock = startMockModel([{ text: "Hi!", usage: { prompt_tokens: 3 } }]);
  const response = await post(mock, { stream: true, stream_options: { include_usage: true } });
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const head = '{"id":"chatcmpl-mock-1","object":"chat.completion.chunk","created":1700000000,' +
    '"model":"m","choices":';
  assert.equal(
    await response.text(),
    `data: ${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n` +
      `data: ${head}[{"index":0,"delta":{"content":"Hi!"},"finish_reason":null}]}\n\n` +
      `data: ${head}[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n` +
      `data: ${head}[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n` +
      "data: [DONE]\n\n",
  );
});

Deno.test("startMockModel splits tool-call arguments across chunks by default", async () => {
  await using mock = startMockModel([{
    toolCalls: [{ name: "read_file", arguments: { path: "a.txt" }, id: "c1" }],
  }]);
  const sse = await (await post(mock, { stream: true })).text();
  const parts = payloadsOf(sse).flatMap((p) => {
    const choice = (p.choices as { delta: { tool_calls?: unknown[] } }[])[0];
    return choice?.delta.tool_calls ?? [];
  });
  assert.deepEqual(parts, [
    { index: 0, id: "c1", type: "function", function: { name: "read_file", arguments: "" } },
    { index: 0, function: { arguments: '{"pa' } },
    { index: 0, function: { arguments: 'th":' } },
    { index: 0, function: { arguments: '"a.t' } },
    { index: 0, function: { arguments: 'xt"}' } },
  ]);
  assert.equal(sse.includes('"usage"'), false, "no usage unless include_usage was asked");
});

Deno.test("startMockModel answers a non-streamed request with one chat.completion", async () => {
  await using mock = startMockModel([{
    text: "Sure",
    thinking: "easy",
    toolCalls: [{ name: "f", arguments: "{}", id: "c1" }],
    usage: { prompt_tokens: 1, completion_tokens: 2 },
  }]);
  assert.deepEqual(await (await post(mock, {})).json(), {
    id: "chatcmpl-mock-1",
    object: "chat.completion",
    created: 1700000000,
    model: "m",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: "Sure",
        reasoning_content: "easy",
        tool_calls: [call("c1")],
      },
      finish_reason: "tool_calls",
    }],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
  });
});

Deno.test("startMockModel sends Retry-After with a 429 fault", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 2 }]);
  const response = await post(mock, {});
  assert.equal(response.status, 429);
  assert.equal(response.headers.get("retry-after"), "2");
  assert.equal((await response.json()).error.code, "rate_limit_exceeded");
});

Deno.test("startMockModel records broken tool-call pairings of every request", async () => {
  await using mock = startMockModel([{ text: "a" }, { text: "b" }]);
  await (await post(mock, { messages: USER })).body?.cancel();
  await (await post(mock, {
    messages: [
      ...USER,
      { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
      { role: "tool", tool_call_id: "c1", name: "f", content: "ok" },
    ],
  })).body?.cancel();
  assert.deepEqual(mock.violations, [
    'request 2: message 3: tool call "c2" (f) has no tool message',
  ]);
  assert.equal(mock.requests.length, 2);
});

Deno.test("findPairingViolations accepts each call answered once, in any order", () => {
  assert.deepEqual(
    findPairingViolations([
      ...USER,
      { role: "assistant", content: "", tool_calls: [call("a"), call("b")] },
      { role: "tool", tool_call_id: "b", name: "f", content: "" },
      { role: "tool", tool_call_id: "a", name: "f", content: "" },
      { role: "assistant", content: "done" },
    ]),
    [],
  );
});

Deno.test("findPairingViolations reports orphaned, duplicated and late tool messages", () => {
  assert.deepEqual(
    findPairingViolations([
      { role: "tool", tool_call_id: "x", name: "f", content: "" },
      { role: "assistant", content: null, tool_calls: [call("a"), call("a")] },
      { role: "tool", tool_call_id: "a", name: "f", content: "" },
      { role: "tool", tool_call_id: "a", name: "f", content: "" },
      { role: "user", content: "next" },
      { role: "tool", tool_call_id: "a", name: "f", content: "" },
    ]),
    [
      'message 0: tool message for "x" answers no tool call of the assistant message before it',
      'message 1: duplicate tool call id "a"',
      'message 3: duplicate tool message for "a"',
      'message 5: tool message for "a" answers no tool call of the assistant message before it',
    ],
  );
});

Deno.test("startMockModel answers an unscripted request with a 500 that says not to retry", async () => {
  await using mock = startMockModel([]);
  const response = await post(mock, {});
  assert.equal(response.status, 500);
  assert.equal(response.headers.get("x-should-retry"), "false");
  assert.equal(
    (await response.json()).error.message,
    "mock script exhausted: no scripted turn for request 1",
  );
  assert.deepEqual(mock.violations, ["request 1: mock script exhausted"]);
});

Deno.test("startMockModel loops the script in repeat mode", async () => {
  await using mock = startMockModel([{ text: "one" }, { text: "two" }], { repeat: true });
  const texts = [];
  for (let i = 0; i < 3; i++) {
    texts.push((await (await post(mock, {})).json()).choices[0].message.content);
  }
  assert.deepEqual(texts, ["one", "two", "one"]);
  assert.deepEqual(mock.violations, []);
});

Deno.test("startMockModel drops a hanging stream when it closes", async () => {
  const mock = startMockModel([{ text: "abcdefgh", fault: "hang" }]);
  const response = await post(mock, { stream: true });
  const reader = response.body!.getReader();
  await reader.read();
  await mock.close();
  await assert.rejects(async () => {
    while (!(await reader.read()).done) { /* drain what was sent before the drop */ }
  }, TypeError);
  assert.equal(await mock.waitForEnd(0), "reset");
});

Deno.test("startMockModel sees the client close a stream", async () => {
  await using mock = startMockModel([{ text: "abcdefgh", fault: "hang" }]);
  const reader = (await post(mock, { stream: true })).body!.getReader();
  await reader.read();
  await reader.cancel();
  assert.equal(await mock.waitForEnd(0), "client_closed");
});

Deno.test("mock_model_server serves a script file from its own process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replio_mock_" });
  const script = join(dir, "script.json");
  await Deno.writeTextFile(script, JSON.stringify({ turns: [{ text: "from a file" }] }));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./mock_model_server.ts", import.meta.url).pathname, script],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  try {
    const stdout = child.stdout.pipeThrough(new TextDecoderStream()).values();
    let first = "";
    while (!first.includes("\n")) first += (await stdout.next()).value ?? "\n";
    const match = /^listening (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(first);
    assert.ok(match, `unexpected first line ${JSON.stringify(first)}`);
    const base = match[1]!;
    const reply = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: USER }),
    });
    assert.equal((await reply.json()).choices[0].message.content, "from a file");
    const exhausted = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: USER }),
    });
    await exhausted.body?.cancel();
    const log = await (await fetch(`${base}/mock/log`)).json();
    assert.deepEqual(log.violations, ["request 2: mock script exhausted"]);
    assert.equal(log.requests.length, 2);
    child.kill("SIGTERM");
    await stdout.return?.();
    const stderr = await new Response(child.stderr).text();
    assert.equal(stderr, "mock violation: request 2: mock script exhausted\n");
    assert.equal((await child.status).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
