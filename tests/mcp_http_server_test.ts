/**
 * `replio mcp --http` and `/mcp` of `replio serve` driven by the official TypeScript SDK client
 * (`StreamableHTTPClientTransport`) and by raw HTTP for what a client library hides: sessions,
 * progress and log notifications, DELETE, shutdown, the session bound and resuming a stream. The
 * guards and bad requests are in mcp_http_guards_test.ts.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/types"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { withDeadline } from "./support/deadline.ts";
import {
  httpClient,
  INITIALIZE,
  rawPost,
  rawSession,
  runCommand,
  startMcpHttp,
} from "./support/mcp_http_replio.ts";
import { mcpWorktree, sdkClient } from "./support/mcp_interop.ts";
import { startMockModel } from "./support/mock_model.ts";
import { processesMatching } from "./support/process_state.ts";
import { runReplio } from "./support/replio_process.ts";
import { serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

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
  const sleep = await startLongCall(client);
  const ended = await server.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(await processesMatching(sleep), 0, "replio exited with the command still running");
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

  const sleep = await startLongCall(client);
  const ended = await served.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(await processesMatching(sleep), 0, "replio serve exited with the command running");
});

/**
 * Starts a command that sleeps for minutes through `client`, waits for its progress saying it
 * started, and returns the `sleep` command line to look for among processes.
 */
async function startLongCall(client: Awaited<ReturnType<typeof httpClient>>): Promise<string> {
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const running = Promise.withResolvers<void>();
  const call = client.callTool(runCommand(`echo started; exec ${sleep}`).params, undefined, {
    onprogress: (p) => p.message?.includes("started") && running.resolve(),
  });
  call.catch(() => {});
  await withDeadline(running.promise, "progress saying the command started");
  assert.ok(await processesMatching(sleep) >= 1, "the command runs before the stop");
  return sleep;
}

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

  // The server lets the lost stream go when it notices the disconnect; until then it answers a
  // resume with 409 (one connection a stream), and a client tries again, as the SDK's client does.
  const resumed = await withDeadline(
    (async () => {
      while (true) {
        const answer = await fetch(server.url, {
          headers: { accept: "text/event-stream", ...session, "last-event-id": primingId },
        });
        if (answer.status !== 409) return answer;
        await answer.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })(),
    "the server to let the lost stream go and take the resume",
  );
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
