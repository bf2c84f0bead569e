/**
 * `replio serve` as a user runs it: a child process on a free port against the mock model
 * server, driven with real HTTP requests (JSON and server-sent events), signals and exit codes.
 * The OpenAI-compatible endpoints are in serve_openai_test.ts, HTTP-level guards (body limit,
 * 100-continue, token, browsers) in serve_http_test.ts.
 */
import assert from "node:assert/strict";
import { loadSession } from "../src/session/mod.ts";
import { VERSION } from "../src/version.ts";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { api, post, rawRequest, readEvents, serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

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
  assert.equal(await mock.waitForEnd(0), "client_closed");

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
  assert.equal(await mock.waitForEnd(0), "client_closed");
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
