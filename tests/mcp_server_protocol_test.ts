/**
 * `replio mcp` as JSON-RPC 2.0 and MCP require of a server (issue #24): every line gets the
 * reply its protocol version asks for (-32700, -32600, -32601, -32602, batches by version), and
 * the default progress heartbeat keeps MCP Inspector's 10 s request timeout alive.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_KEYS } from "../src/config/mod.ts";
import { waitUntil } from "./support/deadline.ts";
import { mcpWorktree, sdkClient } from "./support/mcp_interop.ts";
import { type McpLine, startMcpLines } from "./support/mcp_lines.ts";
import { processesMatching } from "./support/process_state.ts";
import { tempWorktree } from "./support/worktree.ts";

const SEND_MESSAGES = `send {"jsonrpc": "2.0", "id": 1, "method": "tools/list"} or another ` +
  "JSON-RPC 2.0 message";

Deno.test("replio mcp answers what it cannot serve: -32700, -32600, -32601, -32602, and no batch under 2025-06-18", async () => {
  await using wt = await tempWorktree({ "a.txt": "hi\n" });
  await using mcp = startMcpLines(wt.path, {});

  await mcp.sendLine(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]));
  assert.deepEqual(await mcp.next("the refusal of a batch before initialize"), {
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Invalid Request: no protocol version is negotiated yet: send initialize on a " +
        "line of its own first",
    },
  });
  await mcp.send({ id: 2, method: "initialize", params: { protocolVersion: "2025-06-18" } });
  assert.deepEqual(await mcp.next("the refusal of initialize without capabilities"), {
    jsonrpc: "2.0",
    id: 2,
    error: {
      code: -32602,
      message: `Invalid initialize params: "params.capabilities": Invalid input: expected ` +
        `object, received undefined; "params.clientInfo": Invalid input: expected object, ` +
        "received undefined: send them as the MCP specification describes initialize",
    },
  });
  const init = await mcp.initialize("2025-06-18");
  assert.equal(init.result.protocolVersion, "2025-06-18");

  await mcp.sendLine("not json");
  const parseError = await mcp.next("the reply to a line that is not JSON");
  // No id: none could be read, and MCP's schema has no null id.
  assert.deepEqual(Object.keys(parseError), ["jsonrpc", "error"]);
  assert.equal(parseError.error.code, -32700);
  assert.match(
    parseError.error.message,
    /^Parse error: .*not valid JSON: send one JSON-RPC 2\.0 message per line$/,
  );

  await mcp.sendLine(JSON.stringify({ id: 3, method: "ping" }));
  assert.deepEqual(await mcp.next("the reply to a message without jsonrpc"), {
    jsonrpc: "2.0",
    id: 3,
    error: {
      code: -32600,
      message: `Invalid Request: "jsonrpc" must be "2.0", got null: ${SEND_MESSAGES}`,
    },
  });
  await mcp.send({ id: 4, method: "resources/list" });
  assert.deepEqual(await mcp.next("the reply to a method replio does not serve"), {
    jsonrpc: "2.0",
    id: 4,
    error: {
      code: -32601,
      message: `Method not found: "resources/list": replio mcp serves initialize, ping, ` +
        "logging/setLevel, tools/list and tools/call",
    },
  });
  await mcp.send({ id: 5, method: "tools/list", params: { cursor: 5 } });
  assert.deepEqual(await mcp.next("the reply to tools/list with a number cursor"), {
    jsonrpc: "2.0",
    id: 5,
    error: {
      code: -32602,
      message: `Invalid tools/list params: "params.cursor": Invalid input: expected string, ` +
        "received number: send them as the MCP specification describes tools/list",
    },
  });

  // A notification of no known method gets no reply: the next line answers the ping after it.
  await mcp.send({ method: "notifications/no_such_thing" });
  await mcp.send({ id: 6, method: "ping" });
  assert.deepEqual(await mcp.next("the answer to ping"), { jsonrpc: "2.0", id: 6, result: {} });

  // 2025-06-18 has no batches: one refusal, and the batched ping never runs (the next line
  // answers the ping sent after it). The ping just above is the control: alone, it is answered.
  await mcp.sendLine(JSON.stringify([{ jsonrpc: "2.0", id: 7, method: "ping" }]));
  assert.deepEqual(await mcp.next("the refusal of a batch under 2025-06-18"), {
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Invalid Request: protocol version 2025-06-18 has no batches: send each message " +
        "on a line of its own",
    },
  });
  await mcp.send({ id: 8, method: "ping" });
  assert.deepEqual(await mcp.next("the answer to the ping after the batch"), {
    jsonrpc: "2.0",
    id: 8,
    result: {},
  });
  assert.equal(await mcp.close(), 0);
});

Deno.test("replio mcp runs a batch under protocol 2025-03-26 and answers it with one array", async () => {
  await using wt = await tempWorktree({ "a.txt": "hi\n" });
  await using mcp = startMcpLines(wt.path, {});
  const init = await mcp.initialize("2025-03-26");
  assert.equal(init.result.protocolVersion, "2025-03-26");

  await mcp.sendLine(JSON.stringify([
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/no_such_thing" },
    { jsonrpc: "2.0", id: "b", method: "resources/list" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "file_read", arguments: {} } },
    { id: 3 },
    {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "file_read", arguments: { path: "a.txt" } },
    },
  ]));
  const replies = await mcp.next("the array answering the batch");
  assert.ok(Array.isArray(replies), JSON.stringify(replies));
  const byId = new Map<unknown, McpLine>(replies.map((r: McpLine) => [r.id ?? null, r]));
  assert.equal(byId.size, 5, "one reply per request, none for the notification");
  assert.deepEqual(byId.get(1), { jsonrpc: "2.0", id: 1, result: {} });
  assert.equal(byId.get("b").error.code, -32601);
  assert.equal(byId.get(2).result.isError, true);
  assert.deepEqual(byId.get(3), {
    jsonrpc: "2.0",
    id: 3,
    error: {
      code: -32600,
      message: `Invalid Request: "jsonrpc" must be "2.0", got null: ${SEND_MESSAGES}`,
    },
  });
  assert.deepEqual(byId.get(4).result, {
    content: [{ type: "text", text: "# a.txt - 1 line, 3 chars\n1\thi" }],
    isError: false,
  });

  // A batch of notifications only gets no reply: the next line answers the ping after it.
  await mcp.sendLine(JSON.stringify([{ jsonrpc: "2.0", method: "notifications/no_such_thing" }]));
  await mcp.send({ id: 5, method: "ping" });
  assert.deepEqual(await mcp.next("the answer to the ping after the quiet batch"), {
    jsonrpc: "2.0",
    id: 5,
    result: {},
  });
  await mcp.sendLine("[]");
  assert.deepEqual(await mcp.next("the refusal of an empty batch"), {
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: "Invalid Request: the batch is empty: send at least one message in it",
    },
  });
  assert.equal(await mcp.close(), 0);
});

Deno.test("replio mcp answers a batch whose call the client cancels with the batch's other replies", async () => {
  await using wt = await tempWorktree();
  await using mcp = startMcpLines(wt.path, {}, ["--yes"]);
  await mcp.initialize("2025-03-26");
  // A sleep no other process runs, found from outside by its command line.
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  await mcp.sendLine(JSON.stringify([
    {
      jsonrpc: "2.0",
      id: "long",
      method: "tools/call",
      params: { name: "run_command", arguments: { command: `touch started; exec ${sleep}` } },
    },
    { jsonrpc: "2.0", id: "quick", method: "ping" },
  ]));
  await waitUntil(() => existsSync(join(wt.path, "started")), "the batched command to start");
  // Control: the check below sees the command while it runs.
  assert.ok(await processesMatching(sleep) >= 1);
  await mcp.send({ method: "notifications/cancelled", params: { requestId: "long" } });
  // A cancelled request gets no reply (MCP), so the batch is answered without it.
  assert.deepEqual(await mcp.next("the batch's answer after the cancel"), [
    { jsonrpc: "2.0", id: "quick", result: {} },
  ]);
  await waitUntil(async () => await processesMatching(sleep) === 0, "the cancelled command to end");
  assert.equal(await mcp.close(), 0);
});

Deno.test("replio mcp at its default heartbeat keeps a 10 s client timeout alive through a 13 s silent command", async () => {
  // The trial of issue #24: MCP Inspector's 10 s timeout, reset on progress, and a command that
  // prints nothing for 13 s. Nothing is configured: this is the default interval.
  const intervalSeconds = CONFIG_KEYS.mcp_progress_interval.default;
  assert.ok(intervalSeconds <= 3, `the default heartbeat is ${intervalSeconds} s`);
  await using wt = await mcpWorktree({});
  await using client = await sdkClient(wt, ["--yes"]);
  // A first call loads what run_command needs, so the trial's first heartbeat waits for the
  // command only, not for replio's start-up work on a busy machine.
  assert.deepEqual(
    (await client.callTool({
      name: "run_command",
      arguments: { command: "echo ready" },
    })).content,
    [{ type: "text", text: "exit 0\nready" }],
  );
  const release = join(wt.path, "release");
  // Heartbeats come at most once per interval, so this many span at least 13 s: the command
  // stays silent that long, however fast the machine, and ends only when the test lets it.
  const beatsToWait = Math.ceil(13 / intervalSeconds);
  const progress: number[] = [];
  const result = await client.callTool(
    {
      name: "run_command",
      arguments: { command: "until [ -e release ]; do sleep 0.05; done; echo done" },
    },
    undefined,
    {
      timeout: 10_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => {
        progress.push(p.progress);
        if (progress.length === beatsToWait) Deno.writeTextFileSync(release, "");
      },
    },
  );
  assert.deepEqual(result, {
    content: [{ type: "text", text: "exit 0\ndone" }],
    isError: false,
  });
  assert.ok(progress.length >= beatsToWait, `heartbeats: ${progress.join(", ")}`);
});
