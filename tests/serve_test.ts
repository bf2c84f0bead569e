/**
 * `replio serve` as a user runs it: a child process on a free port against the mock model
 * server, driven with real HTTP requests (JSON and server-sent events), signals and exit codes.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { MAX_BODY_BYTES } from "../src/serve/mod.ts";
import { loadSession } from "../src/session/mod.ts";
import { VERSION } from "../src/version.ts";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { replioCommand, runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** A running `replio serve`; disposing it sends SIGTERM and waits for the exit. */
interface Served extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, whatever host it bound. */
  base: string;
  /** The first stdout line. */
  listening: string;
  /** Sends `signal` once and resolves with the exit code and everything written. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

interface ServeOptions {
  args?: string[];
  env?: Record<string, string>;
}

async function serve(cwd: string, mock: MockModel, options: ServeOptions = {}): Promise<Served> {
  const model = ["--base-url", mock.baseUrl, "--model", "mock-model"];
  const args = ["serve", "--port", "0", ...model, ...options.args ?? []];
  const child = replioCommand(args, { cwd, env: options.env ?? {} }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    stdout += value;
  }
  const listening = stdout.split("\n")[0]!;
  let stopped: ReturnType<Served["stop"]> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch (error) {
        // It already exited (a failed start): report what it said.
        if (!(error instanceof TypeError)) throw error;
      }
      const { code } = await child.status;
      for (let read = await lines.read(); !read.done; read = await lines.read()) {
        stdout += read.value;
      }
      return { code, stdout, stderr: await stderr };
    })();
  const match = /^listening http:\/\/(.+):(\d+)$/.exec(listening);
  if (!match) {
    const ended = await stop();
    throw new Error(`replio serve did not start: ${JSON.stringify(ended)}`);
  }
  return {
    base: `http://127.0.0.1:${match[2]}`,
    listening,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

async function api(served: Served, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(served.base + path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

function post(served: Served, path: string, body: unknown, init: RequestInit = {}) {
  return api(served, path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** Sends `head` (request line and headers) with `Connection: close`; returns the whole reply. */
async function rawRequest(served: Served, head: string): Promise<string> {
  const port = Number(new URL(served.base).port);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head + "Connection: close\r\n\r\n"));
  let reply = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    reply += decode(buffer.subarray(0, n));
  }
  return reply;
}

interface ServerSentEvent {
  event: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** Reads server-sent events until the stream ends or `until` says stop (then stops reading). */
async function readEvents(
  response: Response,
  until: (event: ServerSentEvent) => boolean = () => false,
): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += read.value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null");
      events.push({ event, data });
      if (until(events.at(-1)!)) {
        reader.releaseLock();
        return events;
      }
    }
  }
  assert.equal(buffer, "", "the stream ended inside an event");
  return events;
}

Deno.test("replio serve answers health and tools, and refuses bad routes, bodies and origins", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  assert.match(served.listening, /^listening http:\/\/127\.0\.0\.1:\d+$/);

  const health = await api(served, "/v1/health");
  assert.equal(health.status, 200);
  assert.deepEqual(health.body, {
    status: "ok",
    version: VERSION,
    model: "mock-model",
    mode: "default",
    worktree: wt.path,
  });

  const tools = await api(served, "/v1/tools");
  const listed = await runReplio(["tools", "--json"], { cwd: wt.path });
  assert.deepEqual(tools.body, JSON.parse(listed.stdout));
  const plan = await api(served, "/v1/tools?mode=plan");
  assert.equal(plan.body.mode, "plan");
  assert.deepEqual(plan.body.hidden.find((h: { name: string }) => h.name === "run_command"), {
    name: "run_command",
    reason: "mode plan",
  });

  const missing = await api(served, "/v1/nope");
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, {
    error: {
      code: "not_found",
      message: `Cannot find "/v1/nope": no such route: see docs/serve.md for the endpoints`,
      type: "invalid_request_error",
      param: null,
    },
  });
  const wrongMethod = await api(served, "/v1/turns");
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get("allow"), "POST");

  const badJson = await post(served, "/v1/tools/file_read", '{"path": ');
  assert.equal(badJson.status, 400);
  assert.equal(badJson.body.error.code, "bad_json");
  assert.match(
    badJson.body.error.message,
    /^Cannot parse the request body: .*JSON.*: send one JSON object$/,
  );
  const noPrompt = await post(served, "/v1/turns", { promt: "typo" });
  assert.equal(noPrompt.status, 400);
  assert.match(noPrompt.body.error.message, /^Cannot start a turn: unknown field "promt"/);
  const badMode = await post(served, "/v1/turns", { prompt: "hi", mode: "nope" });
  assert.equal(badMode.status, 400);
  assert.match(badMode.body.error.message, /^Cannot use mode "nope": no such mode/);

  const fromPage = await api(served, "/v1/health", { headers: { origin: "https://evil.test" } });
  assert.equal(fromPage.status, 403);
  assert.equal(fromPage.body.error.code, "forbidden");
  // fetch sets Host itself: a DNS-rebound page's request is written by hand.
  const rebound = await rawRequest(served, "GET /v1/health HTTP/1.1\r\nHost: evil.test\r\n");
  assert.match(rebound, /^HTTP\/1\.1 403 /);
  assert.ok(rebound.includes(
    `Cannot answer a request for host \\"evil.test\\": without a token the API answers ` +
      `loopback names only: call ${served.base}, or set REPLIO_SERVE_TOKEN`,
  ));

  const ended = await served.stop();
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(ended.stdout, served.listening + "\n");
  assert.equal(ended.stderr, "");
  assert.equal(mock.requests.length, 0);
});

Deno.test("replio serve runs an allowed tool call and denies run_command headless with 403", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);

  const read = await post(served, "/v1/tools/file_read", { path: "a.txt" });
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, {
    tool: "file_read",
    output: "# a.txt - 1 line, 2 chars\n1\tx",
    is_error: false,
    decision: "granted",
    isolation: "in-process",
    permissions: [{
      call_id: read.body.permissions[0].call_id,
      tool: "file_read",
      permission: "read",
      action: "allow",
      decision: "granted",
      reason: "tool_permission.read",
      path: `${wt.path}/a.txt`,
      isolation: "in-process",
      ts: read.body.permissions[0].ts,
    }],
  });

  const run = await post(served, "/v1/tools/run_command", { command: "echo hi" });
  assert.equal(run.status, 403);
  const refusal = "Error: run_command needs confirmation (tool_permission.bash) and this " +
    "headless run cannot ask: it was denied; continue without it (the operator can rerun with --yes)";
  assert.deepEqual(run.body.error, {
    code: "denied",
    message: refusal,
    type: "invalid_request_error",
    param: null,
  });
  assert.equal(run.body.output, refusal);
  assert.equal(run.body.is_error, true);
  assert.equal(run.body.decision, "denied");
  assert.equal(run.body.permissions[0].reason, "tool_permission.bash; headless");

  const failed = await post(served, "/v1/tools/file_read", { path: "missing.txt" });
  assert.equal(failed.status, 200);
  assert.equal(failed.body.is_error, true);
  assert.match(failed.body.output, /^Error: /);

  const unknown = await post(served, "/v1/tools/nope", {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, "unknown_tool");
  assert.match(unknown.body.error.message, /^Error: unknown tool "nope"/);
});

Deno.test("replio serve --yes runs an ask-gated tool call", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, { args: ["--yes"] });
  const run = await post(served, "/v1/tools/run_command", { command: "echo hi" });
  assert.equal(run.status, 200);
  assert.equal(run.body.output, "exit 0\nhi");
  assert.equal(run.body.decision, "granted");
  assert.equal(run.body.permissions[0].reason, "tool_permission.bash; headless --yes");
});

Deno.test("replio serve streams a turn as server-sent events, every call answered, ending with turn_end", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    {
      thinking: "let me look",
      toolCalls: [
        { name: "file_read", arguments: { path: "a.txt" } },
        { name: "run_command", arguments: { command: "echo hi" } },
        { name: "ask", arguments: { question: "Go on?" } },
      ],
    },
    { text: "a.txt holds x" },
  ]);
  await using served = await serve(wt.path, mock);
  const response = await fetch(served.base + "/v1/turns", {
    method: "POST",
    headers: { accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ prompt: "what is in a.txt?" }),
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const events = await readEvents(response);
  for (const { event, data } of events) assert.equal(event, data.type);
  const types = events.map((e) => e.event);
  assert.equal(types[0], "session");
  assert.equal(types.at(-1), "turn_end");
  assert.deepEqual(events.at(-1)!.data.status, "ok");
  assert.ok(types.includes("thinking"));
  const calls = events.filter((e) => e.event === "tool_call").map((e) => e.data);
  const results = events.filter((e) => e.event === "tool_result").map((e) => e.data);
  assert.deepEqual(calls.map((c) => c.name), ["file_read", "run_command", "ask"]);
  assert.deepEqual(results.map((r) => r.id), calls.map((c) => c.id));
  assert.deepEqual(Object.keys(calls[0]), ["type", "id", "name", "arguments", "isolation"]);
  assert.deepEqual(Object.keys(results[0]), [
    "type",
    "id",
    "name",
    "output",
    "is_error",
    "isolation",
  ]);
  assert.deepEqual(results.map((r) => r.isolation), ["in-process", "none", "in-process"]);
  const decisions = events.filter((e) => e.event === "permission").map((e) => e.data.decision);
  assert.deepEqual(decisions, ["granted", "denied", "granted"]);
  assert.equal(
    results[2].output,
    "Error: ask has no one to answer (no terminal and no lead agent in this run): " +
      "decide yourself, state your assumption in your answer, and continue",
  );
  const text = events.filter((e) => e.event === "text").map((e) => e.data.delta).join("");
  assert.equal(text, "a.txt holds x");
  assert.deepEqual(mock.violations, []);

  const id = events[0]!.data.id;
  const shown = await api(served, `/v1/sessions/${id}`);
  assert.equal(shown.status, 200);
  assert.deepEqual(shown.body.messages.map((m: { role: string }) => m.role), [
    "user",
    "assistant",
    "tool",
    "tool",
    "tool",
    "assistant",
  ]);
});

Deno.test("replio serve answers a JSON turn with a TurnResult and continues its session", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "first" }, { text: "second" }]);
  await using served = await serve(wt.path, mock);
  const one = await post(served, "/v1/turns", { prompt: "one", session: "ses_json" });
  assert.equal(one.status, 200);
  assert.deepEqual(Object.keys(one.body).sort(), [
    "content",
    "duration_ms",
    "errors",
    "model",
    "permissions",
    "rounds",
    "session",
    "status",
    "thinking",
    "tool_calls",
    "usage",
  ]);
  assert.equal(one.body.status, "ok");
  assert.equal(one.body.content, "first");
  assert.equal(one.body.session, "ses_json");
  const two = await post(served, "/v1/turns", { prompt: "two", session: "ses_json" });
  assert.equal(two.body.content, "second");
  const roles = mock.requests[1]!.messages.map((m) => m.role);
  assert.deepEqual(roles, ["system", "user", "assistant", "user"]);

  const list = await api(served, "/v1/sessions");
  assert.equal(list.body.worktree, wt.path);
  assert.deepEqual(
    list.body.sessions.map((s: { id: string; turns: number }) => [s.id, s.turns]),
    [["ses_json", 2]],
  );
  const shown = await api(served, "/v1/sessions/ses_json");
  assert.deepEqual(Object.keys(shown.body), [
    "id",
    "header",
    "messages",
    "permissions",
    "errors",
    "warnings",
  ]);
  assert.equal(shown.body.messages.length, 4);
  assert.equal((await api(served, "/v1/sessions/ses_nope")).status, 404);
  const invalid = await api(served, "/v1/sessions/a%20b");
  assert.equal(invalid.status, 400);
  assert.equal(
    invalid.body.error.message,
    `Cannot show session "a b": not a session id: GET /v1/sessions lists the ids`,
  );
  assert.deepEqual(mock.violations, []);
});

Deno.test("replio serve cancels a streamed turn when the client disconnects and saves it", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { text: "partial words then silence", fault: "hang", faultAfter: 4 },
  ]);
  await using served = await serve(wt.path, mock);
  const client = new AbortController();
  const response = await fetch(served.base + "/v1/turns", {
    method: "POST",
    headers: { accept: "text/event-stream" },
    body: JSON.stringify({ prompt: "talk", session: "ses_gone" }),
    signal: client.signal,
  });
  const events = await readEvents(response, (e) => e.event === "text");
  assert.equal(events.at(-1)!.event, "text");
  client.abort();
  await response.body!.cancel().catch(() => {});
  // The model stream was dropped by the server because the client left, not by a shutdown.
  assert.equal(await (await mock.waitForExchange(0)).ended, "client_closed");

  const ended = await served.stop();
  assert.equal(ended.code, 0, ended.stderr);
  const loaded = await loadSession(wt.path, "ses_gone");
  const last = loaded.records.at(-1)!;
  assert.equal(last.type, "turn_end");
  assert.equal((last as { status?: string }).status, "cancelled");
  assert.equal(loaded.messages.at(-1)!.role, "assistant");
  assert.deepEqual(mock.violations, []);
});

Deno.test("replio serve refuses a second turn in a busy session with 409 and runs another session alongside", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { text: "slow words", fault: "hang", faultAfter: 2 },
    { text: "other session" },
  ]);
  await using served = await serve(wt.path, mock);
  const client = new AbortController();
  const first = post(served, "/v1/turns", { prompt: "slow", session: "ses_busy" }, {
    signal: client.signal,
  }).catch((error: unknown) => error);
  await mock.waitForExchange(0);

  const busy = await post(served, "/v1/turns", { prompt: "again", session: "ses_busy" });
  assert.equal(busy.status, 409);
  assert.deepEqual(busy.body, {
    error: {
      code: "session_busy",
      message: `Cannot start a turn in session "ses_busy": a turn is already running in it: ` +
        `wait for its turn_end, or use another session`,
      type: "invalid_request_error",
      param: null,
    },
  });
  const other = await post(served, "/v1/turns", { prompt: "meanwhile", session: "ses_other" });
  assert.equal(other.status, 200);
  assert.equal(other.body.content, "other session");

  // A JSON client that hangs up cancels its turn too.
  client.abort();
  assert.ok((await first) instanceof Error);
  assert.equal(await (await mock.waitForExchange(0)).ended, "client_closed");
  assert.equal((await served.stop("SIGINT")).code, 0);
  const loaded = await loadSession(wt.path, "ses_busy");
  assert.equal((loaded.records.at(-1) as { status?: string }).status, "cancelled");
});

Deno.test("replio serve on SIGTERM cancels a running turn, answers it, and exits 0", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "never finished", fault: "hang", faultAfter: 2 }]);
  await using served = await serve(wt.path, mock);
  const turn = post(served, "/v1/turns", { prompt: "hi", session: "ses_term" });
  await mock.waitForExchange(0);
  const ended = await served.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  const answer = await turn;
  assert.equal(answer.status, 200);
  assert.equal(answer.body.status, "cancelled");
  const loaded = await loadSession(wt.path, "ses_term");
  assert.equal((loaded.records.at(-1) as { status?: string }).status, "cancelled");
});

Deno.test("replio serve requires the bearer token when REPLIO_SERVE_TOKEN is set", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, {
    args: ["--host", "0.0.0.0"],
    env: { REPLIO_SERVE_TOKEN: "s3cret-token" },
  });
  assert.match(served.listening, /^listening http:\/\/0\.0\.0\.0:\d+$/);
  const none = await api(served, "/v1/health");
  assert.equal(none.status, 401);
  assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="replio"');
  assert.equal(
    none.body.error.message,
    `Cannot answer: no bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
  );
  const wrong = await api(served, "/v1/health", {
    headers: { authorization: "Bearer s3cret-tokem" },
  });
  assert.equal(wrong.status, 401);
  const right = await api(served, "/v1/health", {
    headers: { authorization: "Bearer s3cret-token" },
  });
  assert.equal(right.status, 200);
  assert.equal(right.body.status, "ok");
});

Deno.test("replio serve exits 2 on a non-loopback host without a token, a bad port or a busy port", async () => {
  await using wt = await tempWorktree();
  const open = await runReplio(["serve", "--host", "0.0.0.0", "--port", "0"], { cwd: wt.path });
  assert.equal(open.code, 2);
  assert.equal(open.stdout, "");
  assert.equal(
    open.stderr,
    `replio: Cannot serve on "0.0.0.0": it is reachable from other machines and ` +
      `REPLIO_SERVE_TOKEN is not set, so anyone there could run tools here: ` +
      `set REPLIO_SERVE_TOKEN to a long random secret, or use --host 127.0.0.1\n`,
  );
  const badPort = await runReplio(["serve", "--port", "http"], { cwd: wt.path });
  assert.equal(badPort.code, 2);
  assert.match(badPort.stderr, /Cannot use --port "http": expected a port from 0 to 65535/);

  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = String((taken.addr as Deno.NetAddr).port);
  await using mock = startMockModel();
  const model = ["--base-url", mock.baseUrl, "--model", "mock-model"];
  const busy = await runReplio(["serve", "--port", port, ...model], { cwd: wt.path });
  assert.equal(busy.code, 2);
  assert.match(busy.stderr, /Cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
});

Deno.test("replio serve refuses a body over the limit with 413 and never reads it whole", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const big = JSON.stringify({ path: "x".repeat(MAX_BODY_BYTES) });
  const declared = await post(served, "/v1/tools/file_read", big);
  assert.equal(declared.status, 413);
  assert.deepEqual(declared.body.error, {
    code: "body_too_large",
    message: `Cannot read the request body: it is over the limit of ${MAX_BODY_BYTES} bytes: ` +
      "send a smaller body (shorten the prompt or the history)",
    type: "invalid_request_error",
    param: null,
  });
  // Chunked, so no Content-Length announces the size: the limit holds while reading.
  const chunked = await fetch(served.base + "/v1/turns", {
    method: "POST",
    body: new Blob([big]).stream(),
  });
  assert.equal(chunked.status, 413);
  await chunked.body?.cancel();
  const ended = await served.stop();
  assert.equal(ended.code, 0);
  assert.equal(ended.stderr, "", "a 413 is no internal error");
});

Deno.test("replio serve refuses a blank or spaced REPLIO_SERVE_TOKEN and answers Basic auth with 401", async () => {
  await using wt = await tempWorktree();
  for (
    const [token, problem] of [["   ", "is only whitespace"], ["two words", "contains whitespace"]]
  ) {
    const refused = await runReplio(["serve", "--port", "0"], {
      cwd: wt.path,
      env: { REPLIO_SERVE_TOKEN: token! },
    });
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `replio: Cannot use REPLIO_SERVE_TOKEN: it ${problem}, which no bearer token can carry: ` +
        "set it to a long random secret such as the output of `openssl rand -hex 32`\n",
    );
  }
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, { env: { REPLIO_SERVE_TOKEN: "s3cret-token" } });
  const basic = await api(served, "/v1/health", {
    headers: { authorization: `Basic ${btoa("me:s3cret-token")}` },
  });
  assert.equal(basic.status, 401);
  assert.equal(
    basic.body.error.message,
    `Cannot answer: the Authorization header uses the "Basic" scheme, and this API takes only ` +
      `a bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
  );
});

/** The official openai SDK pointed at a running `replio serve`. */
function openaiClient(served: Served): OpenAI {
  return new OpenAI({ baseURL: served.base + "/v1", apiKey: "unused", maxRetries: 0 });
}

Deno.test("the openai SDK lists replio's modes and agent types as models", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const models = [];
  for await (const model of openaiClient(served).models.list()) models.push(model.id);
  assert.deepEqual(models, [
    "replio/default",
    "replio/plan",
    "replio/sandboxed",
    "replio/accept-edits",
    "replio/agent/general",
    "replio/agent/explore",
  ]);
});

Deno.test("a chat completion for replio/agent/explore runs as that agent type: its prompt, its narrower policy", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_write", arguments: { path: "b.txt", content: "y" } }] },
    { text: "I only read" },
  ]);
  await using served = await serve(wt.path, mock, { args: ["--yes"] });
  const completion = await openaiClient(served).chat.completions.create({
    model: "replio/agent/explore",
    messages: [{ role: "user", content: "write b.txt" }],
  });
  assert.equal(completion.choices[0]!.message.content, "I only read");
  const system = mock.requests[0]!.messages[0]!.content as string;
  assert.match(system, /You are a read-only exploration sub-agent/);
  const offered = (mock.requests[0]!.tools as { function: { name: string } }[] ?? [])
    .map((t) => t.function.name);
  assert.ok(offered.includes("file_read") && !offered.includes("file_write"), offered.join());
  // Even under --yes, the type's deny holds: the file was never written.
  const { replio } = completion as unknown as { replio: { tool_calls: { is_error: boolean }[] } };
  assert.equal(replio.tool_calls[0]!.is_error, true);
  assert.equal(await Deno.stat(`${wt.path}/b.txt`).catch(() => null), null);
});

const READ_THEN_ANSWER = [
  {
    toolCalls: [
      { name: "file_read", arguments: { path: "a.txt" } },
      { name: "run_command", arguments: { command: "echo hi" } },
    ],
  },
  { text: "a.txt holds x" },
];

Deno.test("the openai SDK gets replio's turn as a chat completion: file_read ran, run_command was denied headless", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel(READ_THEN_ANSWER);
  await using served = await serve(wt.path, mock);
  const completion = await openaiClient(served).chat.completions.create({
    model: "replio/default",
    messages: [{ role: "user", content: "what is in a.txt?" }],
  });
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.model, "replio/default");
  assert.deepEqual(completion.choices, [{
    index: 0,
    message: { role: "assistant", content: "a.txt holds x" },
    finish_reason: "stop",
    logprobs: null,
  }]);
  const { replio } = completion as unknown as {
    replio: { status: string; tool_calls: { name: string; output: string; is_error: boolean }[] };
  };
  assert.equal(replio.status, "ok");
  assert.deepEqual(
    replio.tool_calls.map(({ name, output, is_error }) => ({ name, output, is_error })),
    [
      { name: "file_read", output: "# a.txt - 1 line, 2 chars\n1\tx", is_error: false },
      {
        name: "run_command",
        output:
          "Error: run_command needs confirmation (tool_permission.bash) and this headless run " +
          "cannot ask: it was denied; continue without it (the operator can rerun with --yes)",
        is_error: true,
      },
    ],
  );
  assert.equal(mock.requests[0]!.messages.at(-1)!.content, "what is in a.txt?");
  assert.deepEqual(mock.violations, []);
});

Deno.test("the openai SDK streams replio's turn: content deltas, tool activity in the replio field", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel(READ_THEN_ANSWER);
  await using served = await serve(wt.path, mock);
  const stream = await openaiClient(served).chat.completions.create({
    model: "replio/plan",
    messages: [
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "what is in a.txt?" },
    ],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = "";
  const events: { type: string; name?: string; decision?: string }[] = [];
  const finishes: (string | null)[] = [];
  let usage: unknown = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    const choice = chunk.choices[0];
    content += choice?.delta.content ?? "";
    if (choice?.finish_reason) finishes.push(choice.finish_reason);
    const event = (chunk as unknown as { replio?: { event?: (typeof events)[0] } }).replio?.event;
    if (event) events.push(event);
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(content, "a.txt holds x");
  assert.deepEqual(finishes, ["stop"]);
  assert.deepEqual(events.map((e) => [e.type, e.name ?? e.decision ?? ""]), [
    ["tool_call", "file_read"],
    ["permission", "granted"],
    ["tool_result", "file_read"],
    ["tool_call", "run_command"],
    ["permission", "denied"],
    ["tool_result", "run_command"],
  ]);
  assert.ok(usage !== null, "include_usage gives a usage chunk");
  // The mode named by the model decides: plan mode hides run_command from the model.
  const offered = (mock.requests[0]!.tools as { function: { name: string } }[] ?? [])
    .map((t) => t.function.name);
  assert.ok(offered.includes("file_read") && !offered.includes("run_command"));
  assert.match(
    mock.requests[0]!.messages.at(-1)!.content as string,
    /\[system\]\nAnswer briefly\./,
  );
});

Deno.test("the openai SDK gets 413 for an oversized chat body and 404 for an unknown model", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const client = openaiClient(served);
  const tooBig = await client.chat.completions.create({
    model: "replio/default",
    messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES) }],
  }).catch((error: unknown) => error);
  assert.ok(tooBig instanceof OpenAI.APIError, String(tooBig));
  assert.equal(tooBig.status, 413);
  const unknown = await client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "hi" }],
  }).catch((error: unknown) => error);
  assert.ok(unknown instanceof OpenAI.APIError);
  assert.equal(unknown.status, 404);
  assert.match(
    unknown.message,
    /Cannot use model "gpt-4o": replio serves "replio\/default", "replio\/plan", .*"replio\/agent\/general"/,
  );
  assert.equal(mock.requests.length, 0);
});

/** The `sh` and `json` blocks of one `## ` section of docs/serve.md, in order. */
async function docExamples(heading: string): Promise<{ lang: string; text: string }[]> {
  const page = await Deno.readTextFile(new URL("../docs/serve.md", import.meta.url));
  const section = page.split(/^## /m).find((s) => s.startsWith(heading)) ?? "";
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    text: m[2]!,
  }));
}

Deno.test("docs/serve.md's curl examples of the OpenAI-compatible endpoints run as shown", async () => {
  await using wt = await tempWorktree({ "README.md": "# Demo\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }] },
    { text: "It is a demo." },
  ]);
  await using served = await serve(wt.path, mock);
  const examples = await docExamples("OpenAI-compatible");
  const commands = examples.filter((e) => e.lang === "sh");
  assert.equal(commands.length, 2);
  for (const { text } of commands) {
    const shown = examples[examples.findIndex((e) => e.text === text) + 1]!;
    assert.equal(shown.lang, "json");
    const documented = JSON.parse(shown.text);
    const run = await new Deno.Command("sh", {
      args: ["-c", text],
      env: { U: served.base },
    }).output();
    assert.equal(run.code, 0, decode(run.stderr));
    const got = JSON.parse(decode(run.stdout));
    assert.deepEqual(Object.keys(got), Object.keys(documented), text);
    if (got.object === "list") {
      assert.deepEqual(
        got.data.map((m: { id: string }) => m.id),
        documented.data.map((m: { id: string }) => m.id),
      );
    } else {
      assert.deepEqual(got.choices, documented.choices);
      assert.deepEqual(Object.keys(got.replio), Object.keys(documented.replio));
      assert.deepEqual(got.replio.tool_calls[0].output, documented.replio.tool_calls[0].output);
    }
  }
});

Deno.test("serve parks a turn, lists the pending call, takes an answer and resumes (approve and deny)", async () => {
  for (const decision of ["approve", "deny"] as const) {
    await using wt = await tempWorktree({ "a.txt": "hello\n" });
    await using mock = startMockModel([
      { toolCalls: [{ name: "run_command", arguments: { command: "touch approved.txt" } }] },
      { text: "finished" },
    ]);
    await using served = await serve(wt.path, mock);
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${served.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const parked = await post("/v1/turns", { prompt: "make the file", park: true });
    assert.equal(parked.status, 200, JSON.stringify(parked.body));
    assert.equal(parked.body.status, "parked");
    assert.equal(parked.body.pending.tool, "run_command");
    const session = parked.body.session as string;
    const call = parked.body.pending.call_id as string;

    const early = await post("/v1/turns", { session, resume: true });
    assert.equal(early.status, 409);
    assert.match(early.body.error.message, new RegExp(`pending/${call} first`));

    const listed = await (await fetch(`${served.base}/v1/sessions/${session}/pending`)).json();
    assert.deepEqual(listed.pending.map((p: { call_id: string }) => p.call_id), [call]);
    assert.equal(listed.pending[0].approval, null);

    const answer = await post(`/v1/sessions/${session}/pending/${call}`, {
      decision,
      reason: "not today",
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const again = await post(`/v1/sessions/${session}/pending/${call}`, { decision });
    assert.equal(again.status, 409, "an answered call cannot be answered twice");

    const resumed = await post("/v1/turns", { session, resume: true });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.status, "ok");
    assert.equal(resumed.body.content, "finished");
    const made = await Deno.stat(`${wt.path}/approved.txt`).then(() => true, () => false);
    assert.equal(made, decision === "approve");
    const loaded = await loadSession(wt.path, session);
    const audit = loaded.records.flatMap((r) => r.type === "permission" ? [r.decision] : []);
    assert.deepEqual(audit, ["parked", decision === "approve" ? "granted" : "declined"]);
    assert.deepEqual(mock.violations, []);
  }
});
