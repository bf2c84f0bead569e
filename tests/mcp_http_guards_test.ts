/**
 * The guards of `replio mcp --http` (those of `replio serve`: Origin, Host, token, body size),
 * each with a marker file proving a refused call never ran and a control where the same call
 * runs; and bad requests and flags, each answered with a clear error.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  httpClient,
  INITIALIZE,
  type RawAnswer,
  rawHostPost,
  rawPost,
  rawSession,
  runCommand,
  startMcpHttp,
} from "./support/mcp_http_replio.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

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
