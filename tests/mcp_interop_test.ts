/**
 * MCP with real third-party software: the reference servers
 * `@modelcontextprotocol/server-everything` and `@modelcontextprotocol/server-filesystem` (fetched
 * from npm, pinned in deno.json, run under Deno) serve replio, and the official SDK client drives
 * `replio mcp` in front of them. Crashes, slow and hanging servers use
 * tests/support/mcp_echo_server.ts. `replio mcp` itself under real clients is
 * tests/mcp_serve_interop_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cached,
  documentedServers,
  echoServer,
  mcpWorktree,
  sdkClient,
  untilListed,
} from "./support/mcp_interop.ts";
import { processesMatching } from "./support/process_state.ts";
import { HANG_MS } from "./support/deadline.ts";

Deno.test("server-everything, configured as docs/mcp.md shows: a result that reads Error: but is no error succeeds", async () => {
  await cached();
  const { everything } = await documentedServers();
  await using wt = await mcpWorktree({
    mcp_servers: { everything },
    mcp_startup_wait: HANG_MS / 1000,
  });
  const annotated = await wt.replio(
    "tool",
    "mcp__everything__get-annotated-message",
    '{"messageType":"error"}',
    "--yes",
  );
  assert.deepEqual([annotated.code, annotated.stdout], [0, "Error: Operation failed\n"]);
  const json = await wt.replio(
    "tool",
    "mcp__everything__get-annotated-message",
    '{"messageType":"error"}',
    "--yes",
    "--json",
  );
  assert.equal(JSON.parse(json.stdout).is_error, false);

  const tools = await wt.replio("tools");
  assert.equal(tools.code, 0, tools.stderr);
  assert.match(tools.stdout, /^mcp__everything__echo /m);
  assert.match(tools.stdout, /^mcp server everything: ready, \d+ tools$/m);
});

Deno.test("server-everything's task-only tool runs as an MCP task through replio mcp, its status forwarded as progress", async () => {
  await cached();
  const { everything } = await documentedServers();
  await using wt = await mcpWorktree({
    mcp_servers: { everything },
    tool_permission: { mcp: "allow" },
    mcp_progress_interval: 30,
  });
  await using client = await sdkClient(wt, []);
  const name = "mcp__everything__simulate-research-query";
  await untilListed(client, name);
  const messages: string[] = [];
  const result = await client.callTool({ name, arguments: { topic: "deno" } }, undefined, {
    onprogress: (p) => messages.push(p.message ?? ""),
  });
  assert.equal(result.isError, false);
  assert.match((result.content as { text: string }[])[0]!.text, /^# Research Report: deno/);
  // The heartbeat interval is 30 s: these came from the task's own status messages.
  assert.ok(
    messages.some((m) =>
      /^mcp__everything__simulate-research-query: Analyzing content\.\.\., \d+ s$/.test(m)
    ),
    messages.join(" | "),
  );
});

Deno.test("server-filesystem, configured as docs/mcp.md shows, lists a directory through replio tool", async () => {
  await cached();
  const { files } = await documentedServers();
  await using wt = await mcpWorktree({ mcp_servers: { files }, mcp_startup_wait: HANG_MS / 1000 }, {
    "notes.txt": "hi\n",
  });
  const listed = await wt.replio("tool", "mcp__files__list_directory", '{"path":"."}', "--yes");
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^\[FILE\] notes\.txt$/m);
  const outside = await wt.replio(
    "tool",
    "mcp__files__read_text_file",
    '{"path":"/etc/hostname"}',
    "--yes",
  );
  assert.equal(outside.code, 1, "the server's own isError reaches replio as a failure");
  assert.match(outside.stdout, /^Error: .*outside allowed directories/i);
});

Deno.test("a crashed MCP server is named with its exit code and restarted on the next call", async () => {
  await using wt = await mcpWorktree({
    mcp_servers: { mid: echoServer("--with-crash") },
    mcp_startup_wait: HANG_MS / 1000,
    tool_permission: { mcp: "allow" },
  });
  await using client = await sdkClient(wt, []);
  await untilListed(client, "mcp__mid__echo");
  assert.deepEqual(await client.callTool({ name: "mcp__mid__echo", arguments: { text: "one" } }), {
    content: [{ type: "text", text: "one" }],
    isError: false,
  });
  const crashed = await client.callTool({ name: "mcp__mid__crash", arguments: {} });
  assert.deepEqual(crashed, {
    content: [{
      type: "text",
      text: `Error: MCP server "mid" exited with code 3 while running "crash": replio restarts ` +
        "it on the next call: retry once, or use another tool",
    }],
    isError: true,
  });
  assert.deepEqual(await client.callTool({ name: "mcp__mid__echo", arguments: { text: "two" } }), {
    content: [{ type: "text", text: "two" }],
    isError: false,
  });
});

Deno.test("a hanging MCP server delays no command: replio tools shows it connecting, replio tool goes on", async () => {
  await using wt = await mcpWorktree({
    mcp_servers: { stuck: { command: "sleep", args: ["60"] }, echo: echoServer() },
    mcp_startup_wait: 1,
  });
  const tools = await wt.replio("tools", "--json");
  assert.equal(tools.code, 0, tools.stderr);
  const stuck = JSON.parse(tools.stdout).mcp_servers.find((s: { name: string }) =>
    s.name === "stuck"
  );
  // Still connecting: replio tools did not wait out the server's connect timeout (a minute, from
  // mcpWorktree), after which it would read "failed". No clock is read: a busy machine makes
  // this slower, not red.
  assert.deepEqual(stuck, { name: "stuck", state: "connecting", tools: 0 });

  // replio tool waits for its own tool's server only, never for the hanging one: had it waited
  // for every server, it would have seen the hanging one fail and said so.
  const echoed = await wt.replio("tool", "mcp__echo__echo", '{"text":"hi"}', "--yes");
  assert.deepEqual([echoed.code, echoed.stdout], [0, "hi\n"]);
  assert.doesNotMatch(echoed.stderr, /"stuck"/);
  const read = await wt.replio("tool", "file_read", '{"path":".replio/config.yaml"}');
  assert.equal(read.code, 0);
  assert.doesNotMatch(read.stderr, /"stuck"/);
});

Deno.test("an MCP server that does not answer within mcp_connect_timeout is reported as failed", async () => {
  // A server that never answers: the timeout ends its start, however busy the machine.
  const sleep = `300.${Math.floor(Math.random() * 1e9)}`;
  await using wt = await mcpWorktree({
    mcp_servers: { stuck: { command: "sleep", args: [sleep] } },
    mcp_connect_timeout: 1,
  });
  const called = await wt.replio("tool", "mcp__stuck__echo", "{}", "--yes");
  assert.equal(called.code, 1);
  assert.equal(
    called.stderr,
    'replio: Cannot start MCP server "stuck" (continuing without its tools): no answer within 1 s: ' +
      `check that "sleep ${sleep}" runs an MCP server on stdio, or remove mcp_servers.stuck\n`,
  );
  assert.equal(await processesMatching(`sleep ${sleep}`), 0, "the server was stopped");
});

Deno.test("replio mcp answers initialize at once and announces a slow server's tools with list_changed", async () => {
  await using wt = await mcpWorktree({
    // It starts when the test lets it: still starting at the first list, however fast it is.
    mcp_servers: { slow: echoServer("--start-when", "go") },
  });
  await using client = await sdkClient(wt, []);
  const before = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(before.includes("file_read"));
  assert.ok(!before.includes("mcp__slow__echo"), "the slow server is not up yet");
  await Deno.writeTextFile(join(wt.path, "go"), "");
  await untilListed(client, "mcp__slow__echo");
  const after = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(after.includes("mcp__slow__echo"), after.join(", "));
});

Deno.test("a crashed MCP server whose restart fails says why and backs off before the next try", async () => {
  await using wt = await mcpWorktree({});
  const marker = join(wt.path, "started.txt");
  await Deno.writeTextFile(
    join(wt.path, ".replio/config.yaml"),
    JSON.stringify({
      mcp_servers: { mid: echoServer("--with-crash", "--start-once", marker) },
      tool_permission: { mcp: "allow" },
      // The call right after the failed restart must come within the backoff: ten minutes is
      // more than any busy machine takes between two calls, the default second is not.
      mcp_restart_backoff: 600,
      mcp_connect_timeout: HANG_MS / 1000,
    }),
  );
  await using client = await sdkClient(wt, []);
  await untilListed(client, "mcp__mid__crash");
  const text = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as { text: string }[])[0]!.text;
  };
  assert.match(await text("mcp__mid__crash"), /^Error: MCP server "mid" exited with code 3 while/);
  assert.equal(
    await text("mcp__mid__echo", { text: "again" }),
    `Error: MCP server "mid" exited with code 3 and could not be restarted: it exited with code 4 ` +
      `during start-up (its stderr: echo: ${marker} exists: this server starts only once): ` +
      "replio tries again in 600 s; check mcp_servers.mid, or use another tool",
  );
  // The seconds left are counted down by the clock: any count up to the backoff is right.
  const atOnce = await text("mcp__mid__echo", { text: "at once" });
  const left =
    /^Error: MCP server "mid" exited with code 3 and its last restart failed: replio tries again in (\d+) s: use another tool meanwhile$/
      .exec(atOnce);
  assert.ok(left && Number(left[1]) >= 1 && Number(left[1]) <= 600, atOnce);
});

/** Pids of processes whose command line mentions `text` and whose working directory is `cwd`. */
async function processesIn(cwd: string, text: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      if (cmdline.includes(text) && await Deno.realPath(`/proc/${entry.name}/cwd`) === cwd) {
        pids.push(Number(entry.name));
      }
    } catch (error) {
      // The process ended while we looked, or is not ours to inspect.
      if (
        !(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied)
      ) {
        throw error;
      }
    }
  }
  return pids;
}

Deno.test("server-filesystem killed under replio mcp is restarted on the next call", async () => {
  await cached();
  const { files } = await documentedServers();
  await using wt = await mcpWorktree({
    mcp_servers: { files },
    tool_permission: { mcp: "allow" },
  }, { "notes.txt": "hi\n" });
  await using client = await sdkClient(wt, []);
  await untilListed(client, "mcp__files__list_directory");
  const list = () =>
    client.callTool({ name: "mcp__files__list_directory", arguments: { path: "." } });
  assert.equal((await list()).isError, false);

  const [pid, ...others] = await processesIn(await Deno.realPath(wt.path), "server-filesystem");
  assert.ok(pid !== undefined && others.length === 0, `one server process: ${pid}, ${others}`);
  Deno.kill(pid, "SIGKILL");
  // replio may notice the exit before the next call (restart, then success) or during it (the
  // error names the signal, and the call after restarts): never "Not connected".
  let result = await list();
  if (result.isError) {
    assert.match(
      (result.content as { text: string }[])[0]!.text,
      /^Error: MCP server "files" was killed by SIGKILL while running "list_directory"/,
    );
    result = await list();
  }
  assert.equal(result.isError, false, JSON.stringify(result));
  assert.match((result.content as { text: string }[])[0]!.text, /^\[FILE\] notes\.txt$/m);
  const [restarted] = await processesIn(await Deno.realPath(wt.path), "server-filesystem");
  assert.ok(restarted !== undefined && restarted !== pid, "a new server process runs");
});
