/**
 * How the OpenAI-compatible provider fails: what it retries and what it does not, and the
 * message a person reads for each failure (refused, unauthorised, missing model, silent server,
 * an answer that is not a model reply), against real servers on 127.0.0.1.
 * @module
 */
import assert from "node:assert/strict";
import { Config, type ConfigKey } from "../config/mod.ts";
import {
  LOGIN_PAGE,
  refusingPort,
  startAnsweringServer,
  startSilentServer,
} from "../../tests/support/fault_servers.ts";
import { startMockModel } from "../../tests/support/mock_model.ts";
import { withGrowingTimeout } from "../../tests/support/growing_timeout.ts";
import { collectEvents, errorOf, HELLO, joinDeltas } from "../../tests/support/provider_events.ts";
import { createOpenAIProvider } from "./openai.ts";
import { ProviderError } from "./provider_error.ts";
import type { Provider, ProviderEvent } from "./types.ts";

const KEY = "sk-test-0123456789abcdef";

function providerFor(
  mock: { baseUrl: string },
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

Deno.test("OpenAIProvider.chat retries a 429 after its Retry-After", async () => {
  await using mock = startMockModel([
    { fault: "429", retryAfter: 0 },
    { fault: "429", retryAfterMs: 10 },
    { text: "ok" },
  ]);
  const events = joinDeltas(await collectEvents(providerFor(mock)));
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
  const error = errorOf(await collectEvents(providerFor(mock)));
  assert.deepEqual(error, {
    code: "rate_limit",
    message: 'Cannot get a reply from model "mock-model": HTTP 429: Rate limit reached for ' +
      "mock-model: retry later: wait a minute and retry, or raise max_retries",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat retries a 500 with backoff, then succeeds", async () => {
  await using mock = startMockModel([{ fault: "500" }, { text: "recovered" }]);
  const events = joinDeltas(await collectEvents(providerFor(mock)));
  assert.deepEqual(events.map((e) => e.type).slice(0, 2), ["retry", "text"]);
  assert.deepEqual(events[1], { type: "text", delta: "recovered" });
  assert.equal(mock.requests.length, 2);
});

Deno.test("OpenAIProvider.chat stops after max_retries and says how many attempts", async () => {
  await using mock = startMockModel([{ fault: "500", retryAfter: 0 }, {
    fault: "500",
    retryAfter: 0,
  }]);
  const error = errorOf(await collectEvents(providerFor(mock, { max_retries: 1 })));
  assert.equal(mock.requests.length, 2, "our retries only: the SDK retries none");
  assert.deepEqual(error, {
    code: "server_error",
    message: 'Cannot get a reply from model "mock-model" after 2 attempts: HTTP 500: The mock ' +
      `server had an error: retry later, or check the server at "${mock.baseUrl}"`,
  });
});

Deno.test("OpenAIProvider.chat reports a 401 once, naming the key variable, never the key", async () => {
  await using mock = startMockModel([{ fault: "401" }, { text: "unused" }]);
  const error = errorOf(await collectEvents(providerFor(mock, { api_key_env: "MY_MODEL_KEY" })));
  assert.deepEqual(error, {
    code: "auth",
    message: 'Cannot get a reply from model "mock-model": HTTP 401: Incorrect API key ' +
      "provided: [redacted]: set MY_MODEL_KEY to a valid API key",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat says the key is unset when a 401 comes without one", async () => {
  await using mock = startMockModel([{ fault: "401" }]);
  const error = errorOf(await collectEvents(providerFor(mock, {}, "")));
  assert.equal(error.code, "auth");
  assert.match(error.message, /: no API key is set: set OPENAI_API_KEY to your API key$/);
});

Deno.test("OpenAIProvider.chat fails on a reset after content, without retrying", async () => {
  await using mock = startMockModel([{ text: "partial answer", fault: "reset" }, { text: "x" }]);
  const events = await collectEvents(providerFor(mock));
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
  const events = joinDeltas(await collectEvents(providerFor(mock)));
  assert.equal(events[0]?.type, "retry");
  assert.deepEqual(events[1], { type: "text", delta: "second try" });
  assert.equal(events.some((e) => e.type === "tool_calls"), false);
  assert.equal(mock.requests.length, 2);
});

Deno.test("OpenAIProvider.chat accepts a finished stream that lacks [DONE]", async () => {
  await using mock = startMockModel([{ text: "complete", fault: "no_done" }]);
  const events = joinDeltas(await collectEvents(providerFor(mock)));
  assert.deepEqual(events.map((e) => e.type), ["text", "usage", "done"]);
});

Deno.test("OpenAIProvider.chat reports a stream cut before its finish reason", async () => {
  await using mock = startMockModel([{ text: "half an answ", fault: "no_done", faultAfter: 3 }]);
  const error = errorOf(await collectEvents(providerFor(mock)));
  assert.deepEqual(error, {
    code: "incomplete_stream",
    message: 'Cannot get a reply from model "mock-model": the stream ended before the reply ' +
      "was finished: retry the turn",
  });
});

Deno.test("OpenAIProvider.chat reports a malformed data line", async () => {
  await using mock = startMockModel([{ text: "abcdefgh", fault: "malformed", faultAfter: 2 }]);
  const events = await collectEvents(providerFor(mock));
  assert.deepEqual(errorOf(events), {
    code: "bad_response",
    message: 'Cannot get a reply from model "mock-model": malformed reply from ' +
      `"${mock.baseUrl}": data line is not JSON: "{\\"choices\\":[{\\"delta\\":": check that ` +
      "base_url points at an OpenAI-compatible /v1 endpoint",
  });
  assert.equal(mock.requests.length, 1);
});

Deno.test("OpenAIProvider.chat times out a stream gone silent, naming the setting to raise", async () => {
  // The stream must begin within the timeout for it to go silent afterwards; a busy machine may
  // not get the first chunk out that fast, so that run's error is "no answer", and the test
  // runs again with a longer timeout.
  const { result, seconds } = await withGrowingTimeout(
    "the stream's first chunk within stream_idle_timeout",
    async (timeout) => {
      await using mock = startMockModel([{ text: "abcdefgh", fault: "hang" }]);
      const events = await collectEvents(providerFor(mock, { stream_idle_timeout: timeout }));
      return { error: errorOf(events), ended: await mock.waitForEnd(0) };
    },
    ({ error }) => error.message.includes(": no answer within "),
  );
  assert.deepEqual(result, {
    error: {
      code: "timeout",
      message: `Cannot get a reply from model "mock-model": the stream sent nothing for ` +
        `${seconds} s: retry, or raise stream_idle_timeout (now ${seconds} s) if the model ` +
        "needs longer",
    },
    ended: "client_closed",
  });
});
Deno.test("OpenAIProvider.chat ends with done cancelled and closes the stream on abort", async () => {
  await using mock = startMockModel([{ text: "one two three four", fault: "hang", faultAfter: 3 }]);
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  for await (
    const event of providerFor(mock).chat({
      ...{ messages: HELLO, tools: [] },
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
  assert.equal(await mock.waitForEnd(0), "client_closed");
});

Deno.test("OpenAIProvider.chat stops waiting to retry when aborted", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 30 }]);
  const controller = new AbortController();
  const events: ProviderEvent[] = [];
  const stream = providerFor(mock).chat({ messages: HELLO, tools: [], signal: controller.signal });
  const done = (async () => {
    for await (const event of stream) events.push(event);
  })();
  await mock.waitForEnd(0);
  controller.abort();
  await done;
  assert.deepEqual(events, [{ type: "done", reason: "cancelled" }]);
});

Deno.test("OpenAIProvider.chat does not retry an exhausted mock script", async () => {
  await using mock = startMockModel([]);
  const error = errorOf(await collectEvents(providerFor(mock)));
  assert.equal(error.code, "server_error");
  assert.deepEqual(mock.violations, ["request 1: mock script exhausted"]);
});

Deno.test("OpenAIProvider.chat says a refused connection to this machine is refused, without retrying", async () => {
  const port = refusingPort();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const events = await collectEvents(providerFor({ baseUrl }));
  // No retry event: nothing listens, and waiting would not start the server.
  assert.deepEqual(events, [{
    type: "error",
    code: "connection",
    message: `Cannot get a reply from model "mock-model": connection refused at "${baseUrl}": ` +
      `nothing is listening on port ${port}: start the model server, or set base_url (or ` +
      "--base-url) to the address it listens on",
  }]);
});
Deno.test("OpenAIProvider.complete retries, then throws a ProviderError", async () => {
  await using mock = startMockModel([{ fault: "429", retryAfter: 0 }, { fault: "401" }]);
  await assert.rejects(
    providerFor(mock).complete(HELLO, AbortSignal.any([])),
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
    providerFor(mock, { stream_idle_timeout: 0.3 }).complete(HELLO, AbortSignal.any([])),
    { name: "ProviderError", code: "timeout" },
  );
  assert.equal(await mock.waitForEnd(0), "client_closed");
});

Deno.test("OpenAIProvider.complete rejects with the abort reason when cancelled", async () => {
  await using mock = startMockModel([{ fault: "hang" }]);
  const controller = new AbortController();
  const pending = providerFor(mock).complete(HELLO, controller.signal);
  await mock.waitForExchange(0);
  controller.abort();
  await assert.rejects(pending, { name: "AbortError" });
  assert.equal(await mock.waitForEnd(0), "client_closed");
});

Deno.test("OpenAIProvider.complete reports a malformed body", async () => {
  await using mock = startMockModel([{ text: "x", fault: "malformed" }]);
  await assert.rejects(
    providerFor(mock).complete(HELLO, AbortSignal.any([])),
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
    assert.deepEqual(errorOf(await collectEvents(provider)), {
      code: "connection",
      message: 'Cannot get a reply from model "m": no network permission for ' +
        '"http://127.0.0.1:5999/v1": restart replio with --allow-net=127.0.0.1:5999',
    });
  },
});

Deno.test("OpenAIProvider.chat says a 200 HTML page answered, with its title and first bytes, without retrying", async () => {
  await using server = startAnsweringServer(() =>
    new Response(LOGIN_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
  );
  assert.deepEqual(errorOf(await collectEvents(providerFor(server))), {
    code: "bad_response",
    message: `Cannot get a reply from model "mock-model": "${server.baseUrl}" answered with an ` +
      'HTML page titled "Sign in - Corp Proxy", not an event stream: it begins ' +
      '"<!DOCTYPE html><html><head><title>Sign in - Corp Proxy</title></head><body>Sign ' +
      'in</body></html>": a proxy or login page answered ' +
      "instead of the model server: check base_url, your proxy settings (HTTPS_PROXY) and " +
      "that you are logged in to the network",
  });
  assert.deepEqual(server.requests, ["POST /v1/chat/completions"]);
});

Deno.test("OpenAIProvider.chat recognises an HTML page sent without an HTML content type", async () => {
  await using server = startAnsweringServer(() =>
    new Response("<html><head><title>Login</title></head><body>Sign in</body></html>", {
      headers: { "content-type": "application/octet-stream" },
    })
  );
  const error = errorOf(await collectEvents(providerFor(server)));
  assert.equal(error.code, "bad_response");
  assert.match(
    error.message,
    /answered with an HTML page titled "Login", not an event stream: it begins "<html><head><title>Login/,
  );
  assert.deepEqual(server.requests, ["POST /v1/chat/completions"]);
});

Deno.test("OpenAIProvider.chat shows the first bytes of a text answer that is not a stream", async () => {
  await using server = startAnsweringServer(() =>
    new Response("Welcome to nginx!\nIf you see this page, the web server works.", {
      headers: { "content-type": "text/plain" },
    })
  );
  assert.deepEqual(errorOf(await collectEvents(providerFor(server))), {
    code: "bad_response",
    message: `Cannot get a reply from model "mock-model": "${server.baseUrl}" answered with ` +
      'something (text/plain) that is not an event stream: it begins "Welcome to nginx! If you ' +
      'see this page, the web server works.": check that base_url points at an ' +
      "OpenAI-compatible /v1 endpoint",
  });
  assert.equal(server.requests.length, 1);
});

Deno.test("OpenAIProvider.chat reports a JSON error answered with status 200 in the server's words", async () => {
  await using server = startAnsweringServer(() =>
    Response.json({ error: { message: "model is still loading" } })
  );
  assert.deepEqual(errorOf(await collectEvents(providerFor(server))), {
    code: "server_error",
    message: `Cannot get a reply from model "mock-model": "${server.baseUrl}" answered with an ` +
      "error instead of an event stream: model is still loading: retry later, or check the " +
      `server at "${server.baseUrl}"`,
  });
});

Deno.test("OpenAIProvider.chat retries an empty 200 body, which a proxy sends when its upstream dropped", async () => {
  let answers = 0;
  await using server = startAnsweringServer(() => {
    answers++;
    return new Response("", { headers: { "content-type": "text/event-stream" } });
  });
  const events = await collectEvents(providerFor(server, { max_retries: 1 }), undefined);
  assert.deepEqual(events.map((e) => e.type), ["retry", "error"]);
  assert.deepEqual(errorOf(events), {
    code: "incomplete_stream",
    message: `Cannot get a reply from model "mock-model" after 2 attempts: "${server.baseUrl}" ` +
      "answered with an empty body, not an event stream: retry the turn",
  });
  assert.equal(answers, 2);
});

Deno.test("OpenAIProvider.chat names the missing model and the ones the server lists on a 404", async () => {
  await using server = startAnsweringServer((request) =>
    new URL(request.url).pathname === "/v1/models"
      ? Response.json({ data: [{ id: "qwen3" }, { id: "llama3" }] })
      : Response.json({ error: { message: "model 'mock-model' not found" } }, { status: 404 })
  );
  const events = await collectEvents(providerFor(server));
  assert.deepEqual(events, [{
    type: "error",
    code: "bad_request",
    message: `Cannot get a reply from model "mock-model": HTTP 404: model 'mock-model' not ` +
      `found: the server has no model "mock-model"; it lists "qwen3", "llama3": pass --model ` +
      "NAME or run `replio config set model NAME`",
  }]);
  assert.deepEqual(server.requests, ["POST /v1/chat/completions", "GET /v1/models"]);
});

Deno.test("OpenAIProvider.chat points at base_url when a 404 server lists no models either", async () => {
  await using server = startAnsweringServer(() => new Response("Not Found", { status: 404 }));
  assert.deepEqual(errorOf(await collectEvents(providerFor(server))), {
    code: "bad_request",
    message: `Cannot get a reply from model "mock-model": HTTP 404: Not Found: check base_url: ` +
      `"${server.baseUrl}" serves neither /chat/completions nor /models (OpenAI-compatible ` +
      "servers serve them under /v1)",
  });
});

Deno.test("OpenAIProvider.chat bounds a server that accepts and never answers by stream_idle_timeout", async () => {
  await using server = startSilentServer();
  const events = await collectEvents(providerFor(server, { stream_idle_timeout: 0.3 }));
  assert.deepEqual(events, [{
    type: "error",
    code: "timeout",
    message: `Cannot get a reply from model "mock-model": no answer within 0.3 s: retry, or ` +
      "raise stream_idle_timeout (now 0.3 s) if the model needs longer",
  }]);
  assert.equal(server.connections, 1);
});

Deno.test("OpenAIProvider.chat says no API key was set when api_key_env is empty", async () => {
  await using mock = startMockModel([{ fault: "401" }]);
  const error = errorOf(await collectEvents(providerFor(mock, { api_key_env: "" }, "")));
  assert.equal(error.code, "auth");
  assert.match(
    error.message,
    /: set api_key_env to the name of the variable that holds your API key$/,
  );
});
