import assert from "node:assert/strict";
import { Config, type ConfigKey } from "../config/mod.ts";
import {
  type MockDialect,
  type MockModel,
  type MockTurn,
  startMockModel,
} from "../../tests/support/mock_model.ts";
import { createOpenAIProvider } from "./openai.ts";
import { ProviderError } from "./provider_error.ts";
import type { ChatMessage, Provider, ProviderEvent } from "./types.ts";

const KEY = "sk-test-0123456789abcdef";
const USER: ChatMessage[] = [{ role: "user", content: "hi" }];

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

async function collect(
  provider: Provider,
  signal = new AbortController().signal,
  messages = USER,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.chat({ messages, tools: [], signal })) events.push(event);
  return events;
}

/** Joins consecutive deltas of one kind, so assertions do not depend on chunking. */
function joined(events: ProviderEvent[]): ProviderEvent[] {
  const out: ProviderEvent[] = [];
  for (const event of events) {
    const last = out.at(-1);
    if ((event.type === "text" || event.type === "thinking") && last?.type === event.type) {
      out[out.length - 1] = { type: event.type, delta: last.delta + event.delta };
    } else out.push(event);
  }
  return out;
}

function errorOf(events: ProviderEvent[]): { code: string; message: string } {
  const last = events.at(-1);
  assert.equal(last?.type, "error", `expected an error event last, got ${JSON.stringify(last)}`);
  return { code: last.code, message: last.message };
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
  const events = await collect(providerFor(mock));
  assert.ok(events.filter((e) => e.type === "text").length > 1, "text arrives in pieces");
  assert.deepEqual(joined(events), [
    { type: "thinking", delta: "Let me think." },
    { type: "text", delta: "Hello there" },
    { type: "usage", usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } },
    { type: "done", reason: "stop" },
  ]);
  assert.deepEqual(mock.violations, []);
});

Deno.test("OpenAIProvider.chat reads the `reasoning` delta field as thinking", async () => {
  await using mock = startMockModel([{ thinking: "Hmm", thinkingField: "reasoning", text: "Ok" }]);
  const events = joined(await collect(providerFor(mock)));
  assert.deepEqual(events.slice(0, 2), [
    { type: "thinking", delta: "Hmm" },
    { type: "text", delta: "Ok" },
  ]);
});

Deno.test("OpenAIProvider.chat sends the configured settings and omits unset ones", async () => {
  await using mock = startMockModel([{ text: "a" }, { text: "b" }]);
  await collect(providerFor(mock));
  await collect(providerFor(mock, { temperature: 0.2, max_tokens: 300, reasoning: "high" }));
  const [plain, tuned] = mock.requests;
  assert.deepEqual(plain, {
    model: "mock-model",
    messages: USER,
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
    const events = joined(await collect(providerFor(mock)));
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
  const events = await collect(providerFor(mock));
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
    const deltas = (await collect(providerFor(mock)))
      .flatMap((e) => e.type === "text" ? [e.delta] : []);
    assert.equal(deltas.join(""), text);
    assert.ok(deltas.every((d) => d.isWellFormed()), `a delta split a character: ${deltas}`);
  }
});

Deno.test("OpenAIProvider.chat retries a 429 after its Retry-After", async () => {
  await using mock = startMockModel([
    { fault: "429", retryAfter: 0 },
    { fault: "429", retryAfterMs: 10 },
    { text: "ok" },
  ]);
  const events = joined(await collect(providerFor(mock)));
  // Each retry is announced with its reason and delay, before the wait.
  const reason = "HTTP 429: Rate limit reached for mock-model: retry later";
  assert.deepEqual(events.slice(0, 3), [
    { type: "retry", reason, delay_ms: 0, attempt: 2, attempts: 4 },
    { type: "retry", reason, delay_ms: 10, attempt: 3, attempts: 4 },
    { type: "text", delta: "ok" },
  ]);
  assert.equal(mock.requests.length, 3);
});

Deno.test("OpenAIProvider.chat gives up when Retry-After asks for more than a minute", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 3600 }, { text: "unused" }]);
  const error = errorOf(await collect(providerFor(mock)));
  assert.deepEqual(error, {
    code: "rate_limit",
    message: 'Cannot get a reply from model "mock-model": HTTP 429: Rate limit reached for ' +
      "mock-model: retry later: wait a minute and retry, or raise max_retries",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat retries a 500 with backoff, then succeeds", async () => {
  await using mock = startMockModel([{ fault: "500" }, { text: "recovered" }]);
  const events = joined(await collect(providerFor(mock)));
  assert.deepEqual(events.map((e) => e.type).slice(0, 2), ["retry", "text"]);
  assert.deepEqual(events[1], { type: "text", delta: "recovered" });
  assert.equal(mock.requests.length, 2);
});

Deno.test("OpenAIProvider.chat stops after max_retries and says how many attempts", async () => {
  await using mock = startMockModel([{ fault: "500", retryAfter: 0 }, {
    fault: "500",
    retryAfter: 0,
  }]);
  const error = errorOf(await collect(providerFor(mock, { max_retries: 1 })));
  assert.equal(mock.requests.length, 2, "our retries only: the SDK retries none");
  assert.deepEqual(error, {
    code: "server_error",
    message: 'Cannot get a reply from model "mock-model" after 2 attempts: HTTP 500: The mock ' +
      `server had an error: retry later, or check the server at "${mock.baseUrl}"`,
  });
});

Deno.test("OpenAIProvider.chat reports a 401 once, naming the key variable, never the key", async () => {
  await using mock = startMockModel([{ fault: "401" }, { text: "unused" }]);
  const error = errorOf(await collect(providerFor(mock, { api_key_env: "MY_MODEL_KEY" })));
  assert.deepEqual(error, {
    code: "auth",
    message: 'Cannot get a reply from model "mock-model": HTTP 401: Incorrect API key ' +
      "provided: [redacted]: set MY_MODEL_KEY to a valid API key",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat says the key is unset when a 401 comes without one", async () => {
  await using mock = startMockModel([{ fault: "401" }]);
  const error = errorOf(await collect(providerFor(mock, {}, "")));
  assert.equal(error.code, "auth");
  assert.match(error.message, /: no API key is set: set OPENAI_API_KEY to your API key$/);
});

Deno.test("OpenAIProvider.chat fails on a reset after content, without retrying", async () => {
  await using mock = startMockModel([{ text: "partial answer", fault: "reset" }, { text: "x" }]);
  const events = await collect(providerFor(mock));
  assert.ok(events.some((e) => e.type === "text"));
  const error = errorOf(events);
  assert.equal(error.code, "connection");
  assert.match(error.message, /failed: error reading a body from connection: check that/);
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat retries a reset that came before any content", async () => {
  await using mock = startMockModel([
    { text: "lost", toolCalls: [{ name: "f" }], fault: "reset", faultAfter: 1 },
    { text: "second try" },
  ]);
  const events = joined(await collect(providerFor(mock)));
  assert.equal(events[0]?.type, "retry");
  assert.deepEqual(events[1], { type: "text", delta: "second try" });
  assert.equal(events.some((e) => e.type === "tool_calls"), false);
  assert.equal(mock.requests.length, 2);
});

Deno.test("OpenAIProvider.chat accepts a finished stream that lacks [DONE]", async () => {
  await using mock = startMockModel([{ text: "complete", fault: "no_done" }]);
  const events = joined(await collect(providerFor(mock)));
  assert.deepEqual(events.map((e) => e.type), ["text", "usage", "done"]);
});

Deno.test("OpenAIProvider.chat reports a stream cut before its finish reason", async () => {
  await using mock = startMockModel([{ text: "half an answ", fault: "no_done", faultAfter: 3 }]);
  const error = errorOf(await collect(providerFor(mock)));
  assert.deepEqual(error, {
    code: "incomplete_stream",
    message: 'Cannot get a reply from model "mock-model": the stream ended before the reply ' +
      "was finished: retry the turn",
  });
});

Deno.test("OpenAIProvider.chat reports a malformed data line", async () => {
  await using mock = startMockModel([{ text: "abcdefgh", fault: "malformed", faultAfter: 2 }]);
  const events = await collect(providerFor(mock));
  assert.deepEqual(errorOf(events), {
    code: "bad_response",
    message: 'Cannot get a reply from model "mock-model": malformed reply from ' +
      `"${mock.baseUrl}": data line is not JSON: "{\\"choices\\":[{\\"delta\\":": check that ` +
      "base_url points at an OpenAI-compatible /v1 endpoint",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat times out a silent stream and closes it", async () => {
  await using mock = startMockModel([{ text: "abcdefgh", fault: "hang" }]);
  const events = await collect(providerFor(mock, { stream_idle_timeout: 0.3 }));
  assert.deepEqual(errorOf(events), {
    code: "timeout",
    message: 'Cannot get a reply from model "mock-model": no data for 0.3 s: retry, or raise ' +
      "stream_idle_timeout",
  });
  assert.equal(await mock.exchanges[0]?.ended, "client_closed");
});

Deno.test("OpenAIProvider.chat ends with done cancelled and closes the stream on abort", async () => {
  await using mock = startMockModel([{ text: "one two three four", fault: "hang", faultAfter: 3 }]);
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  for await (
    const event of providerFor(mock).chat({
      ...{ messages: USER, tools: [] },
      signal: controller.signal,
    })
  ) {
    events.push(event);
    if (event.type === "text") controller.abort();
  }
  assert.deepEqual(events, [{ type: "text", delta: "one " }, {
    type: "done",
    reason: "cancelled",
  }]);
  assert.equal(await mock.exchanges[0]?.ended, "client_closed");
});

Deno.test("OpenAIProvider.chat stops waiting to retry when aborted", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 30 }]);
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  const stream = providerFor(mock).chat({ messages: USER, tools: [], signal: controller.signal });
  const done = (async () => {
    for await (const event of stream) events.push(event);
  })();
  await (await mock.waitForExchange(0)).ended;
  controller.abort();
  await done;
  assert.deepEqual(events, [{ type: "done", reason: "cancelled" }]);
});

Deno.test("OpenAIProvider.chat does not retry an exhausted mock script", async () => {
  await using mock = startMockModel([]);
  const error = errorOf(await collect(providerFor(mock)));
  assert.equal(error.code, "server_error");
  assert.deepEqual(mock.violations, ["request 1: mock script exhausted"]);
});

Deno.test("OpenAIProvider.chat reports an unreachable server", async () => {
  const closed = startMockModel();
  const baseUrl = closed.baseUrl;
  await closed.close();
  const provider = createOpenAIProvider({
    config: Config.defaults().with({ max_retries: 0 }),
    baseUrl,
    model: "m",
    apiKey: "",
  });
  const events = await collect(provider);
  const error = errorOf(events);
  assert.equal(error.code, "connection");
  assert.ok(
    error.message.startsWith(
      `Cannot get a reply from model "m": connection to "${baseUrl}" failed: `,
    ),
  );
  assert.ok(
    error.message.endsWith(
      ": check that the server is running, base_url is right and the network is up",
    ),
  );
});

Deno.test("OpenAIProvider.complete returns the text of a non-streamed reply", async () => {
  await using mock = startMockModel([{ thinking: "ignored", text: "A summary." }]);
  const text = await providerFor(mock).complete(USER, AbortSignal.any([]));
  assert.equal(text, "A summary.");
  assert.equal(mock.requests[0]?.stream, false);
});

Deno.test("OpenAIProvider.complete retries, then throws a ProviderError", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 0 }, { fault: "401" }]);
  await assert.rejects(
    providerFor(mock).complete(USER, AbortSignal.any([])),
    (error) => {
      assert.ok(error instanceof ProviderError);
      assert.equal(error.code, "auth");
      assert.ok(error.message.includes("after 2 attempts"));
      assert.ok(!error.message.includes(KEY));
      return true;
    },
  );
});

Deno.test("OpenAIProvider.complete times out a server that never answers", async () => {
  await using mock = startMockModel([{ fault: "hang" }]);
  await assert.rejects(
    providerFor(mock, { stream_idle_timeout: 0.3 }).complete(USER, AbortSignal.any([])),
    { name: "ProviderError", code: "timeout" },
  );
  assert.equal(await mock.exchanges[0]?.ended, "client_closed");
});

Deno.test("OpenAIProvider.complete rejects with the abort reason when cancelled", async () => {
  await using mock = startMockModel([{ fault: "hang" }]);
  const controller = new AbortController();
  const pending = providerFor(mock).complete(USER, controller.signal);
  const exchange = await mock.waitForExchange(0);
  controller.abort();
  await assert.rejects(pending, { name: "AbortError" });
  assert.equal(await exchange.ended, "client_closed");
});

Deno.test("OpenAIProvider.complete reports a malformed body", async () => {
  await using mock = startMockModel([{ text: "x", fault: "malformed" }]);
  await assert.rejects(
    providerFor(mock).complete(USER, AbortSignal.any([])),
    { name: "ProviderError", code: "bad_response" },
  );
});

Deno.test({
  name: "OpenAIProvider.chat names the missing --allow-net instead of retrying",
  permissions: { net: ["127.0.0.1:1"], read: true, env: false },
  async fn() {
    const provider = createOpenAIProvider({
      config: Config.defaults(),
      baseUrl: "http://127.0.0.1:5999/v1",
      model: "m",
      apiKey: "",
    });
    assert.deepEqual(errorOf(await collect(provider)), {
      code: "connection",
      message: 'Cannot get a reply from model "m": no network permission for ' +
        '"http://127.0.0.1:5999/v1": restart replio with --allow-net=127.0.0.1:5999',
    });
  },
});

Deno.test("OpenAIProvider.chat says a 200 HTML page answered, with its title, without retrying", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response("<!DOCTYPE html><title>Captive Portal Login</title><p>Sign in", {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  });
  try {
    const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;
    const provider = createOpenAIProvider({
      config: Config.defaults(),
      baseUrl,
      model: "m",
      apiKey: "",
    });
    assert.deepEqual(errorOf(await collect(provider)), {
      code: "bad_response",
      message: `Cannot get a reply from model "m": "${baseUrl}" answered with an HTML page ` +
        `titled "Captive Portal Login", not a model reply: a proxy or login page answered ` +
        "instead of the model server: check base_url, your proxy settings (HTTPS_PROXY) and " +
        "that you are logged in to the network",
    });
    assert.equal(requests, 1);
  } finally {
    await server.shutdown();
  }
});
