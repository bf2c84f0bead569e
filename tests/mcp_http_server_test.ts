/**
 * `replio mcp --http` and `/mcp` of `replio serve` driven by the official TypeScript SDK client
 * (`StreamableHTTPClientTransport`) and by raw HTTP for what a client library hides: sessions,
 * progress and log notifications, DELETE, shutdown, and the guards (Origin, Host, token, body
 * size) with a marker file proving whether a refused call ran.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { withDeadline } from "./support/deadline.ts";
import { httpClient, startMcpHttp } from "./support/mcp_http_replio.ts";
import { mcpWorktree, sdkClient } from "./support/mcp_interop.ts";
import { startMockModel } from "./support/mock_model.ts";
import { processesMatching } from "./support/process_state.ts";
import { runReplio } from "./support/replio_process.ts";
import { serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

/** An answer read off the wire: its status, and its JSON-RPC messages (SSE or plain JSON). */
interface RawAnswer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  messages: any[];
  text: string;
}

/** POSTs `body` to `url` as an MCP client would, with `headers` on top. */
async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return await readAnswer(response.status, response.headers, await response.text());
}

function readAnswer(status: number, headers: Headers, text: string): RawAnswer {
  const isStream = (headers.get("content-type") ?? "").startsWith("text/event-stream");
  const messages = isStream
    ? [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!))
    : text.trim()
    ? [JSON.parse(text)]
    : [];
  return { status, headers, messages, text };
}

/** A session opened by raw initialize; returns its id. */
async function rawSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const answer = await rawPost(url, INITIALIZE, headers);
  assert.equal(answer.status, 200, answer.text);
  const id = answer.headers.get("mcp-session-id");
  assert.ok(id, "initialize answers with a session id");
  await rawPost(url, { jsonrpc: "2.0", method: "notifications/initialized" }, {
    ...headers,
    "mcp-session-id": id,
  });
  return id;
}

/**
 * POSTs over a plain TCP connection, so the test can send any Host header (fetch sets its own).
 */
async function rawHostPost(url: string, host: string, body: unknown, headers: string[]) {
  const { port } = new URL(url);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const payload = new TextEncoder().encode(JSON.stringify(body));
  const head = [
    `POST /mcp HTTP/1.1`,
    `Host: ${host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "MCP-Protocol-Version: 2025-06-18",
    `Content-Length: ${payload.byteLength}`,
    "Connection: close",
    ...headers,
  ].join("\r\n") + "\r\n\r\n";
  await conn.write(new TextEncoder().encode(head));
  await conn.write(payload);
  let reply = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    reply += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return Number(/^HTTP\/1\.1 (\d+)/.exec(reply)?.[1]);
}

/** A tools/call of run_command as a raw JSON-RPC request. */
function runCommand(command: string, id = 2) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "run_command", arguments: { command } },
  };
}

Deno.test("replio mcp --http serves the SDK client: tools, calls, ping, sessions, and DELETE ends one", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello from a file\n" });
  await using server = await startMcpHttp(wt.path);
  await using client = await httpClient(server.url);
  const sessionId = client.http.sessionId;
  assert.match(sessionId ?? "", /^[0-9a-f-]{36}$/);

  const { tools } = await client.listTools();
  const listed = await runReplio(["tools", "--json"], { cwd: wt.path });
  assert.deepEqual(
    tools.map((tool) => tool.name),
    JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name),
  );
  const read = await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
  assert.equal(read.isError, false);
  assert.match(JSON.stringify(read.content), /hello from a file/);
  assert.deepEqual(await client.ping(), {});

  // Headless without --yes: the ask-gated command is denied, as on stdio, and says how to allow it.
  const denied = await client.callTool(runCommand("touch ran.txt").params);
  assert.equal(denied.isError, true);
  assert.match(JSON.stringify(denied.content), /tool_permission\.bash.*--yes/);
  assert.equal(existsSync(join(wt.path, "ran.txt")), false);

  const unserved = await rawPost(server.url, { jsonrpc: "2.0", id: 7, method: "resources/list" }, {
    "mcp-session-id": sessionId!,
  });
  assert.deepEqual(unserved.messages, [{
    jsonrpc: "2.0",
    id: 7,
    error: {
      code: -32601,
      message: `Method not found: "resources/list": replio mcp serves initialize, ping, ` +
        "logging/setLevel, tools/list and tools/call",
    },
  }]);

  await client.http.terminateSession();
  const after = await rawPost(server.url, { jsonrpc: "2.0", id: 8, method: "ping" }, {
    "mcp-session-id": sessionId!,
  });
  assert.equal(after.status, 404);
  assert.deepEqual(after.messages, [{
    jsonrpc: "2.0",
    error: {
      code: -32001,
      message: `Session not found: "${sessionId}" has ended or never existed: send initialize ` +
        "again, without an Mcp-Session-Id header, to start a new session",
    },
  }]);
});

Deno.test("replio mcp --http sends a command's lines as log messages at the level the client set, with progress", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path, ["--yes"]);
  await using client = await httpClient(server.url);
  const logs: { level: string; logger?: string | undefined; data: unknown }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  // The command waits for the test, which waits for the progress naming its first line: that
  // line was reported live, however fast or slow the machine is.
  const command = "echo first; until [ -e go ]; do sleep 0.05; done; echo second";
  const callReleased = async () => {
    await Deno.remove(join(wt.path, "go")).catch(() => {});
    const progress: string[] = [];
    const result = await client.callTool(runCommand(command).params, undefined, {
      onprogress: (p) => {
        progress.push(p.message ?? "");
        if (p.message?.includes("first")) Deno.writeTextFileSync(join(wt.path, "go"), "");
      },
    });
    assert.deepEqual(result.content, [{ type: "text", text: "exit 0\nfirst\nsecond" }]);
    return progress;
  };

  assert.deepEqual(await client.setLoggingLevel("info"), {});
  const progress = await callReleased();
  assert.ok(progress.some((m) => /^run_command: first, \d+ s$/.test(m)), progress.join("; "));
  assert.deepEqual(logs[0], { level: "info", logger: "run_command", data: "first" });
  assert.ok(logs.every((log) => log.level === "info" && log.logger === "run_command"));

  // Above the level of a command's lines: the same call sends progress and no log message.
  logs.length = 0;
  assert.deepEqual(await client.setLoggingLevel("warning"), {});
  const quiet = await callReleased();
  assert.ok(quiet.some((m) => m.includes("first")), "the tool reported its line");
  assert.deepEqual(logs, []);

  const bad = await rawPost(server.url, {
    jsonrpc: "2.0",
    id: 3,
    method: "logging/setLevel",
    params: { level: "loud" },
  }, { "mcp-session-id": client.http.sessionId! });
  assert.deepEqual(bad.messages[0].error, {
    code: -32602,
    message: `Invalid logging/setLevel params: "level" must be one of debug, info, notice, ` +
      `warning, error, critical, alert, emergency, got "loud": send {"level": "info"} or ` +
      "another of them",
  });
});

Deno.test("replio mcp --http: DELETE ends the session's running call, and answers once its command is gone", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path, ["--yes"]);
  await using client = await httpClient(server.url);
  // A sleep no other process runs, found from outside by its command line.
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const running = Promise.withResolvers<void>();
  const call = client.callTool(runCommand(`echo started; exec ${sleep}`).params, undefined, {
    onprogress: (p) => p.message?.includes("started") && running.resolve(),
  });
  call.catch(() => {});
  await withDeadline(running.promise, "progress saying the command started");
  // Control: the check below sees the command while it runs.
  assert.ok(await processesMatching(sleep) >= 1, "the command runs before the DELETE");
  await client.http.terminateSession();
  assert.equal(await processesMatching(sleep), 0, "DELETE answered with the command still running");
});

Deno.test("replio mcp --http on SIGTERM ends a running call and exits 0", async () => {
  await using wt = await tempWorktree();
  const server = await startMcpHttp(wt.path, ["--yes"]);
  await using client = await httpClient(server.url);
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const running = Promise.withResolvers<void>();
  const call = client.callTool(runCommand(`echo started; exec ${sleep}`).params, undefined, {
    onprogress: (p) => p.message?.includes("started") && running.resolve(),
  });
  call.catch(() => {});
  await withDeadline(running.promise, "progress saying the command started");
  assert.ok(await processesMatching(sleep) >= 1, "the command runs before the stop");
  const ended = await server.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(await processesMatching(sleep), 0, "replio exited with the command still running");
});

Deno.test("replio mcp --http refuses a web page's Origin and a rebound Host: the call never runs; its own origin is served", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path, ["--yes"]);
  const session = await rawSession(server.url);
  const { host, origin } = new URL(server.url);
  const ran = (name: string) => existsSync(join(wt.path, name));

  const fromPage = await rawPost(server.url, runCommand("touch origin.txt"), {
    "mcp-session-id": session,
    origin: "http://evil.example",
  });
  assert.equal(fromPage.status, 403);
  assert.equal(
    JSON.parse(fromPage.text).error.message,
    `Cannot answer a request from the web page "http://evil.example": without a token the API ` +
      "answers local programs only: call it without an Origin header, or set REPLIO_SERVE_TOKEN",
  );
  assert.equal(ran("origin.txt"), false);

  // DNS rebinding: a page of evil.example whose name now points at 127.0.0.1.
  const rebound = await rawHostPost(server.url, "evil.example:80", runCommand("touch host.txt"), [
    `Mcp-Session-Id: ${session}`,
    "Origin: http://evil.example:80",
  ]);
  assert.equal(rebound, 403);
  assert.equal(ran("host.txt"), false);
  // A new session is refused the same way (the conformance suite's DNS-rebinding check).
  assert.equal(await rawHostPost(server.url, "evil.example:80", INITIALIZE, []), 403);

  // Control: the same call from the server's own origin and loopback Host runs.
  const own = await rawPost(server.url, runCommand("touch own.txt"), {
    "mcp-session-id": session,
    origin,
  });
  assert.equal(own.status, 200, own.text);
  assert.equal(own.messages.at(-1).result.isError, false, own.text);
  assert.equal(ran("own.txt"), true);
  assert.equal(
    await rawHostPost(server.url, host, runCommand("touch host_ok.txt", 3), [
      `Mcp-Session-Id: ${session}`,
    ]),
    200,
  );
  assert.equal(ran("host_ok.txt"), true);
});

Deno.test("replio mcp --http with REPLIO_SERVE_TOKEN runs a call only with the token", async () => {
  await using wt = await tempWorktree();
  const token = "s3cret-mcp-token";
  await using server = await startMcpHttp(wt.path, ["--yes"], { REPLIO_SERVE_TOKEN: token });
  const auth = { authorization: `Bearer ${token}` };
  await assert.rejects(httpClient(server.url), /no bearer token/);
  const session = await rawSession(server.url, auth);
  const ran = (name: string) => existsSync(join(wt.path, name));

  const noToken = await rawPost(server.url, runCommand("touch none.txt"), {
    "mcp-session-id": session,
  });
  assert.equal(noToken.status, 401);
  assert.equal(
    JSON.parse(noToken.text).error.message,
    `Cannot answer: no bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
  );
  const wrong = await rawPost(server.url, runCommand("touch wrong.txt"), {
    "mcp-session-id": session,
    authorization: "Bearer guess",
  });
  assert.equal(wrong.status, 401);
  assert.equal(ran("none.txt") || ran("wrong.txt"), false);

  // Control: with the token the same call runs, through the SDK client too.
  await using client = await httpClient(server.url, auth);
  const result = await client.callTool(runCommand("touch right.txt").params);
  assert.equal(result.isError, false, JSON.stringify(result));
  assert.equal(ran("right.txt"), true);
});

Deno.test("replio mcp --http answers bad requests with a clear error, never a stack trace", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path);
  const session = await rawSession(server.url);
  const inSession = { "mcp-session-id": session };
  const errorOf = (answer: RawAnswer) => ({ status: answer.status, ...answer.messages[0].error });

  assert.deepEqual(errorOf(await rawPost(server.url, '{"jsonrpc": ', inSession)), {
    status: 400,
    code: -32700,
    message: "Parse error: Unexpected end of JSON input: send one JSON-RPC 2.0 message as the body",
  });
  assert.deepEqual(errorOf(await rawPost(server.url, { jsonrpc: "1.0", id: 4 }, inSession)), {
    status: 400,
    code: -32600,
    message: `Invalid Request: "jsonrpc" must be "2.0", got "1.0": send {"jsonrpc": "2.0", ` +
      `"id": 1, "method": "tools/list"} or another JSON-RPC 2.0 message`,
  });
  assert.deepEqual(errorOf(await rawPost(server.url, [{ ...INITIALIZE, id: 5 }], inSession)), {
    status: 400,
    code: -32600,
    message: "Invalid Request: protocol version 2025-06-18 has no batches: send each message " +
      "in a request of its own",
  });
  assert.deepEqual(
    errorOf(await rawPost(server.url, { jsonrpc: "2.0", id: 6, method: "tools/list" })),
    {
      status: 400,
      code: -32600,
      message: "Invalid Request: no session yet: send initialize alone first, without an " +
        "Mcp-Session-Id header, then send that header with the id it answers with",
    },
  );
  const get = await fetch(server.url, { headers: { accept: "text/event-stream" } });
  assert.deepEqual({ status: get.status, ...(await get.json()).error }, {
    status: 400,
    code: -32000,
    message: "Cannot GET without an Mcp-Session-Id header: POST initialize first and send the " +
      "Mcp-Session-Id it answers with on every later request",
  });
  // Over the 10 MiB limit of replio serve: refused, and nothing else changes.
  const huge = JSON.stringify({ ...runCommand("x"), pad: "x".repeat(10 * 1024 * 1024) });
  assert.deepEqual(errorOf(await rawPost(server.url, huge, inSession)), {
    status: 413,
    code: -32600,
    message: "Cannot read the request body: it is over the limit of 10485760 bytes: send a " +
      "smaller message",
  });
  const badInit = await rawPost(server.url, {
    ...INITIALIZE,
    params: { ...INITIALIZE.params, protocolVersion: 7 },
  });
  assert.deepEqual({ ...errorOf(badInit), id: badInit.messages[0].id }, {
    status: 400,
    code: -32602,
    message: `Invalid initialize params: "params.protocolVersion": Invalid input: expected ` +
      "string, received number: send them as the MCP specification describes initialize",
    id: 1,
  });
});

Deno.test("replio mcp refuses bad HTTP flags with exit 2 and a line saying what to do", async () => {
  await using wt = await tempWorktree();
  const cases: [string[], Record<string, string>, string][] = [
    [
      ["mcp", "--port", "8787"],
      {},
      "replio: Cannot use --port without --http: replio mcp speaks stdio unless told: add " +
      "--http to serve over HTTP",
    ],
    [
      ["mcp", "serve", "--http", "--port", "http"],
      {},
      `replio: Cannot use --port "http": expected a port from 0 to 65535: pass 8787, or 0 for ` +
      "any free port",
    ],
    [
      ["mcp", "--http", "--host", "0.0.0.0", "--port", "0"],
      {},
      `replio: Cannot serve on "0.0.0.0": it is reachable from other machines and ` +
      "REPLIO_SERVE_TOKEN is not set, so anyone there could run tools here: set " +
      "REPLIO_SERVE_TOKEN to a long random secret, or use --host 127.0.0.1",
    ],
  ];
  for (const [args, env, message] of cases) {
    const out = await runReplio(args, { cwd: wt.path, env });
    assert.deepEqual({ code: out.code, stderr: out.stderr.trim(), stdout: out.stdout }, {
      code: 2,
      stderr: message,
      stdout: "",
    });
  }
});

Deno.test("replio serve serves MCP at /mcp, and its stop ends a running MCP call", async () => {
  await using wt = await tempWorktree({ "a.txt": "served over serve\n" });
  await using mock = startMockModel();
  const served = await serve(wt.path, mock, { args: ["--yes"] });
  await using client = await httpClient(`${served.base}/mcp`);
  const read = await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
  assert.match(JSON.stringify(read.content), /served over serve/);
  // The rest of the API is still there beside it.
  assert.equal((await fetch(`${served.base}/v1/health`).then((r) => r.json())).status, "ok");
  const put = await fetch(`${served.base}/mcp`, { method: "PUT" });
  assert.deepEqual({ status: put.status, allow: put.headers.get("allow") }, {
    status: 405,
    allow: "GET, POST, DELETE",
  });
  await put.body?.cancel();

  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const running = Promise.withResolvers<void>();
  const call = client.callTool(runCommand(`echo started; exec ${sleep}`).params, undefined, {
    onprogress: (p) => p.message?.includes("started") && running.resolve(),
  });
  call.catch(() => {});
  await withDeadline(running.promise, "progress saying the command started");
  assert.ok(await processesMatching(sleep) >= 1, "the command runs before the stop");
  const ended = await served.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(await processesMatching(sleep), 0, "replio serve exited with the command running");
});

Deno.test("replio mcp serve speaks stdio as replio mcp does", async () => {
  await using wt = await mcpWorktree({});
  await using client = await sdkClient(wt, ["serve"]);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === "file_read"));
  assert.deepEqual(await client.ping(), {});
});

Deno.test("replio mcp --http keeps 100 sessions: past that it ends the least recently used idle one, never a busy one", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path, ["--yes"]);
  // The busy session is the oldest: a call runs in it until the test releases it.
  await using busy = await httpClient(server.url);
  const running = Promise.withResolvers<void>();
  const call = busy.callTool(
    runCommand("echo started; until [ -e release ]; do sleep 0.05; done; echo released").params,
    undefined,
    { onprogress: (p) => p.message?.includes("started") && running.resolve() },
  );
  // Awaited below; a failure before that must not surface as an uncaught rejection.
  call.catch(() => {});
  await withDeadline(running.promise, "progress saying the command started");
  const idle = await rawSession(server.url);
  const later: string[] = [];
  for (let i = 0; i < 98; i++) later.push(await rawSession(server.url));
  // Control: at 100 sessions, the idle one still answers.
  const ping = (session: string) =>
    rawPost(server.url, { jsonrpc: "2.0", id: 9, method: "ping" }, { "mcp-session-id": session });
  assert.equal((await ping(idle)).status, 200);
  // The 101st ends the least recently used idle session: the ping above made that one later[0].
  await rawSession(server.url);
  assert.equal((await ping(later[0]!)).status, 404);
  assert.equal((await ping(idle)).status, 200);
  await Deno.writeTextFile(join(wt.path, "release"), "");
  assert.deepEqual((await call).content, [{ type: "text", text: "exit 0\nstarted\nreleased" }]);
});

Deno.test("replio mcp --http: a client that lost a call's stream resumes it with Last-Event-ID and gets the result", async () => {
  await using wt = await tempWorktree();
  await using server = await startMcpHttp(wt.path, ["--yes"]);
  const version = { "mcp-protocol-version": "2025-11-25" };
  const init = await rawPost(server.url, {
    ...INITIALIZE,
    params: { ...INITIALIZE.params, protocolVersion: "2025-11-25" },
  }, version);
  const session = { ...version, "mcp-session-id": init.headers.get("mcp-session-id")! };
  const lost = new AbortController();
  const response = await fetch(server.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...session,
    },
    body: JSON.stringify(runCommand("until [ -e release ]; do sleep 0.05; done; echo resumed")),
    signal: lost.signal,
  });
  // The first event primes the stream: its id is where to resume, `retry` how soon.
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n\n")) {
    const read = await withDeadline(reader.read(), "the priming event");
    assert.ok(!read.done, "the stream ended before its priming event");
    first += read.value;
  }
  const primingId = /^id: (.+)$/m.exec(first)?.[1];
  assert.ok(primingId, first);
  assert.match(first, /^retry: 1000$/m);
  lost.abort();
  await reader.cancel().catch(() => {});
  await Deno.writeTextFile(join(wt.path, "release"), "");

  const resumed = await fetch(server.url, {
    headers: { accept: "text/event-stream", ...session, "last-event-id": primingId },
  });
  assert.equal(resumed.status, 200);
  const events = resumed.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes('"result"')) {
    const read = await withDeadline(events.read(), "the call's result on the resumed stream");
    assert.ok(!read.done, `the resumed stream ended without the result: ${text}`);
    text += read.value;
  }
  await events.cancel();
  const result = [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!))
    .find((message) => message.id === 2);
  assert.deepEqual(result.result.content, [{ type: "text", text: "exit 0\nresumed" }]);
});
