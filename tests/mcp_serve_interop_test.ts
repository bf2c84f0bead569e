/**
 * `replio mcp` driven by real clients: the official SDK client (`@modelcontextprotocol/sdk`) with
 * a short timeout kept alive by heartbeats and a cancel that ends the command, and the protocol
 * spoken line by line for what a client library hides.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { replioCommand } from "./support/replio_process.ts";
import { processesMatching } from "./support/process_state.ts";
import { waitUntil, withDeadline } from "./support/deadline.ts";
import { withGrowingTimeout } from "./support/growing_timeout.ts";
import { mcpWorktree, orLate, sdkClient } from "./support/mcp_interop.ts";

Deno.test("replio mcp keeps a short client timeout alive with progress heartbeats during a long call", async () => {
  const intervalMs = 200;
  await using wt = await mcpWorktree({ mcp_progress_interval: intervalMs / 1000 });
  await using client = await sdkClient(wt, ["--yes"]);
  // Each command runs until the test lets it end (the control's never), so it outlasts the
  // client's timeout however fast or slow the machine is.
  const call = {
    name: "run_command",
    arguments: { command: "until [ -e never ]; do sleep 0.05; done; echo done" },
  };

  // Control: the same call without a progress token times out at the client's 1 s.
  await assert.rejects(
    client.callTool(call, undefined, { timeout: 1_000 }),
    /Request timed out/,
  );

  // A busy machine may leave a gap longer than the client's timeout before the first heartbeat
  // (the call's start) or between two: that run times out, and the test runs again with a
  // longer timeout. Each run's command waits for a release file of its own.
  let runs = 0;
  let progress: number[] = [];
  let beatsToWait = 0;
  const { result, seconds } = await withGrowingTimeout(
    "a call kept alive by heartbeats past twice the client's timeout",
    (timeoutSeconds) => {
      const release = join(wt.path, `release-${++runs}`);
      const command = `until [ -e ${release} ]; do sleep 0.05; done; echo done`;
      progress = [];
      // Heartbeats come at most once per interval, so this many span twice the timeout.
      beatsToWait = 2 * timeoutSeconds * 1000 / intervalMs;
      return client.callTool({ name: "run_command", arguments: { command } }, undefined, {
        timeout: timeoutSeconds * 1000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          progress.push(p.progress);
          if (progress.length === beatsToWait) Deno.writeTextFileSync(release, "");
        },
      }).catch((error: unknown) => error);
    },
    (outcome) => outcome instanceof Error && /Request timed out/.test(outcome.message),
  );
  assert.deepEqual(result, {
    content: [{ type: "text", text: "exit 0\ndone" }],
    isError: false,
  }, `with a ${seconds} s timeout`);
  assert.ok(progress.length >= beatsToWait, `heartbeats: ${progress.join(", ")}`);
  assert.deepEqual(progress, progress.toSorted((a, b) => a - b), "progress only grows");
});

Deno.test("replio mcp stops a call the SDK client cancels", async () => {
  await using wt = await mcpWorktree({ mcp_progress_interval: 0.3 });
  await using client = await sdkClient(wt, ["--yes"]);
  // A sleep no other process runs, found from outside by its command line.
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const running = Promise.withResolvers<void>();
  const cancel = new AbortController();
  const cancelled = client.callTool(
    { name: "run_command", arguments: { command: `touch started.txt; exec ${sleep}` } },
    undefined,
    // A heartbeat after the command has started tells the test it runs.
    {
      signal: cancel.signal,
      onprogress: () => existsSync(join(wt.path, "started.txt")) && running.resolve(),
    },
  );
  cancelled.catch(() => {});
  await withDeadline(running.promise, "a heartbeat while the command runs");
  // Control: the check below sees the command while it runs.
  assert.ok(await processesMatching(sleep) >= 1, "the command runs before the cancel");
  cancel.abort();
  await assert.rejects(cancelled, /abort/i);
  await waitUntil(async () => await processesMatching(sleep) === 0, "the cancelled command to end");
  const later = await client.callTool({
    name: "run_command",
    arguments: { command: "echo later" },
  });
  assert.deepEqual(later.content, [{ type: "text", text: "exit 0\nlater" }]);
});

/** `replio mcp` spoken to line by line, for the protocol details a client library hides. */
function rawMcp(cwd: string, env: Record<string, string>, args: string[]) {
  const child = replioCommand(["mcp", ...args], { cwd, env, stdin: "" }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    child,
    writer,
    send: (message: Record<string, unknown>) =>
      writer.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")),
    /**
     * The next message `wanted` picks; earlier ones are dropped. Fails after `seconds` with the
     * messages it dropped, so a message that never comes fails the test instead of hanging it.
     */
    async next(wanted: (message: Record<string, unknown>) => boolean, seconds = 60) {
      const dropped: string[] = [];
      const deadline = AbortSignal.timeout(seconds * 1000);
      for (;;) {
        let end: number;
        while ((end = buffer.indexOf("\n")) !== -1) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + 1);
          const message = JSON.parse(line);
          if (wanted(message)) return message as Record<string, unknown>;
          dropped.push(line);
        }
        const read = await orLate(lines.read(), deadline);
        if (read === "late" || read.done) {
          throw new Error(
            `${read === "late" ? `no such message within ${seconds} s` : "replio mcp ended"}; ` +
              `messages before it: ${dropped.join("\n") || "none"}`,
          );
        }
        buffer += read.value;
      }
    },
    /** The answer to request `id`. */
    answer(id: number) {
      return this.next((message) => message.id === id);
    },
    lines,
  };
}

Deno.test("replio mcp answers an unknown tool with -32602, bad params readably, and ends running calls when stdin closes", async () => {
  await using wt = await mcpWorktree({ mcp_progress_interval: 0.3 });
  // A sleep no other process runs, found from outside by its command line.
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const mcp = rawMcp(wt.path, wt.env, ["--yes"]);
  await mcp.send({
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  assert.equal(
    ((await mcp.answer(1)).result as { serverInfo: { name: string } }).serverInfo.name,
    "replio",
  );
  await mcp.send({ method: "notifications/initialized" });

  await mcp.send({
    id: 2,
    method: "tools/call",
    params: {
      name: "run_command",
      arguments: { command: `touch started.txt; exec ${sleep}` },
      _meta: { progressToken: "call-2" },
    },
  });
  await mcp.send({ id: 3, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
  assert.deepEqual((await mcp.answer(3)).error, {
    code: -32602,
    message: `Unknown tool "no_such_tool": call tools/list for the tools replio serves`,
  });
  await mcp.send({
    id: 4,
    method: "tools/call",
    params: { name: "file_read", arguments: "a.txt" },
  });
  assert.deepEqual((await mcp.answer(4)).error, {
    code: -32602,
    message: `Invalid tools/call params: "arguments" must be a JSON object, got "a.txt": ` +
      "send the tool's arguments as an object",
  });
  await mcp.send({ id: 5, method: "tools/call", params: { arguments: {} } });
  assert.deepEqual((await mcp.answer(5)).error, {
    code: -32602,
    message: `Invalid tools/call params: "name" must be the name of a tool, got null: ` +
      "call tools/list for the names",
  });
  await mcp.send({ id: 6, method: "tools/call", params: { name: "file_read", arguments: {} } });
  assert.deepEqual((await mcp.answer(6)).result, {
    content: [{
      type: "text",
      text: 'Error: invalid arguments for file_read: missing required parameter "path": ' +
        "see the tool's parameters and call it again",
    }],
    isError: true,
  });

  // The client goes away while call 2 runs: replio cancels it, waits for it to end, exits 0.
  // Control: the check below sees the command while it runs. (Its shell's command line names
  // the sleep too, before it has run the touch: the file is waited for first.)
  await waitUntil(() => existsSync(join(wt.path, "started.txt")), "call 2's command to start");
  assert.ok(await processesMatching(sleep) >= 1);
  // A heartbeat, not an answer: the call is still running.
  const beat = await mcp.next((m) => m.method === "notifications/progress" || m.id === 2);
  assert.equal(
    beat.method,
    "notifications/progress",
    `call 2 ended early: ${JSON.stringify(beat)}`,
  );
  await mcp.writer.close();
  const status = await mcp.child.status;
  await mcp.lines.cancel();
  assert.equal(status.code, 0);
  // Found by its command line: inside the sandbox's PID namespace, `$$` is not the host's pid.
  assert.equal(await processesMatching(sleep), 0, "the command ended with replio");
});
