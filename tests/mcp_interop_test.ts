/**
 * MCP with real third-party software: the official SDK client (`@modelcontextprotocol/sdk`)
 * drives `replio mcp`, and the reference servers `@modelcontextprotocol/server-everything` and
 * `@modelcontextprotocol/server-filesystem` (fetched from npm, pinned in deno.json, run under
 * Deno) serve replio. Crashes, slow and hanging servers use tests/support/mcp_echo_server.ts.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { loadMcpSdk } from "../src/mcp/mod.ts";
import { MAIN, replioCommand, runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";
import { processesMatching } from "./support/process_state.ts";
import { waitUntil, withDeadline } from "./support/deadline.ts";

const ECHO_SERVER = new URL("./support/mcp_echo_server.ts", import.meta.url).pathname;

/** The npm specifiers of the reference servers, as pinned in deno.json (never spelled here). */
const PINNED: Record<string, string> = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
).imports;
const EVERYTHING = PINNED["@modelcontextprotocol/server-everything"]!;
const FILESYSTEM = PINNED["@modelcontextprotocol/server-filesystem"]!;

/** The `mcp_servers` example of docs/mcp.md's "Tested with" section, which these tests run. */
async function documentedServers(): Promise<Record<string, { command: string; args: string[] }>> {
  const page = await Deno.readTextFile(new URL("../docs/mcp.md", import.meta.url));
  const section = page.split(/^## /m).find((s) => s.startsWith("Tested with")) ?? "";
  const yaml = /^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
  const servers = parseYaml(yaml).mcp_servers;
  // The page names the same pinned versions the tests fetch.
  assert.deepEqual(servers.everything.args.at(2), EVERYTHING);
  assert.deepEqual(servers.files.args.at(2), FILESYSTEM);
  return servers;
}

/**
 * Fetches the reference servers once, so no test spends its connect time downloading. Without
 * this repository's config and lockfile, as the servers themselves run (from a worktree with
 * neither): resolved through deno.lock, the cache would hold the packages but not the registry
 * metadata the servers' own resolution reads, and each server start would go to the network.
 * This process has the machine's proxy and CA settings; replio's children in these tests do not.
 */
const caching = new Deno.Command(Deno.execPath(), {
  args: ["cache", "--no-config", EVERYTHING, FILESYSTEM],
  stdout: "null",
  stderr: "piped",
}).output();

/** Waits for the servers' download; a failed one fails the test with deno's own words. */
async function cached(): Promise<void> {
  const out = await caching;
  const stderr = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-5).join("\n");
  assert.ok(out.success, `deno cache of the reference servers failed:\n${stderr}`);
}

/**
 * A worktree whose local config is `config`, with its own global config folder, in which the user
 * trusts the worktree (an untrusted folder's mcp_servers never start).
 */
async function mcpWorktree(config: Record<string, unknown>, files: Record<string, string> = {}) {
  const wt = await tempWorktree({ ".replio/config.yaml": JSON.stringify(config), ...files });
  await wt.write(".xdg/replio/config.yaml", JSON.stringify({ trusted_folders: [wt.path] }));
  const env = {
    HOME: Deno.env.get("HOME") ?? "",
    XDG_CONFIG_HOME: join(wt.path, ".xdg"),
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
  };
  return {
    path: wt.path,
    env,
    replio: (...args: string[]) => runReplio(args, { cwd: wt.path, env }),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

/** The official SDK client connected to `replio mcp ...args` in `wt`. */
async function sdkClient(wt: { path: string; env: Record<string, string> }, args: string[]) {
  const { Client, StdioClientTransport } = await loadMcpSdk();
  const client = new Client({ name: "interop-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "--no-prompt", "-A", MAIN, "mcp", ...args],
      cwd: wt.path,
      env: wt.env,
      stderr: "pipe",
    }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/**
 * Resolves once `tools/list` holds `name`, listing again after each `tools/list_changed`; fails
 * after `seconds` with what was listed, so a server that never comes up fails the test instead
 * of hanging the run.
 */
async function untilListed(
  client: Awaited<ReturnType<typeof sdkClient>>,
  name: string,
  seconds = 60,
) {
  const { ToolListChangedNotificationSchema } = await loadMcpSdk();
  let changed = Promise.withResolvers<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
  const deadline = AbortSignal.timeout(seconds * 1000);
  for (;;) {
    const pending = changed.promise;
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === name)) return;
    if (await orLate(pending, deadline) === "late") {
      throw new Error(
        `${name} not listed within ${seconds} s; listed: ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    changed = Promise.withResolvers();
  }
}

/** `promise`'s value, or "late" once `deadline` fires: a wait that cannot hang a test. */
function orLate<T>(promise: Promise<T>, deadline: AbortSignal): Promise<T | "late"> {
  const late = new Promise<"late">((resolve) => {
    if (deadline.aborted) resolve("late");
    deadline.addEventListener("abort", () => resolve("late"), { once: true });
  });
  return Promise.race([promise, late]);
}

function echoServer(...flags: string[]) {
  return { command: Deno.execPath(), args: ["run", "-A", ECHO_SERVER, ...flags] };
}

Deno.test("replio mcp keeps a short client timeout alive with progress heartbeats during a long call", async () => {
  const intervalMs = 200;
  await using wt = await mcpWorktree({ mcp_progress_interval: intervalMs / 1000 });
  await using client = await sdkClient(wt, ["--yes"]);
  // The command runs until the test lets it end, so it outlasts the client's timeout however
  // fast or slow the machine is.
  const release = join(wt.path, "release");
  const call = {
    name: "run_command",
    arguments: { command: "until [ -e release ]; do sleep 0.05; done; echo done" },
  };

  // Control: the same call without a progress token times out at the client's 1 s.
  await assert.rejects(
    client.callTool(call, undefined, { timeout: 1_000 }),
    /Request timed out/,
  );

  const timeoutMs = 2_000;
  // Heartbeats come at most once per interval, so this many span twice the client's timeout.
  const beatsToWait = 2 * timeoutMs / intervalMs;
  const progress: number[] = [];
  const result = await client.callTool(call, undefined, {
    timeout: timeoutMs,
    resetTimeoutOnProgress: true,
    onprogress: (p) => {
      progress.push(p.progress);
      if (progress.length === beatsToWait) Deno.writeTextFileSync(release, "");
    },
  });
  assert.deepEqual(result, {
    content: [{ type: "text", text: "exit 0\ndone" }],
    isError: false,
  });
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
  const sleep = `sleep 30.${Math.floor(Math.random() * 1e9)}`;
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
  // A heartbeat: the command has been running for a while.
  const beat = await mcp.next((m) => m.method === "notifications/progress" || m.id === 2);
  assert.equal(
    beat.method,
    "notifications/progress",
    `call 2 ended early: ${JSON.stringify(beat)}`,
  );
  assert.ok(existsSync(join(wt.path, "started.txt")));
  // Control: the check below sees the command while it runs.
  assert.ok(await processesMatching(sleep) >= 1);
  await mcp.writer.close();
  const status = await mcp.child.status;
  await mcp.lines.cancel();
  assert.equal(status.code, 0);
  // Found by its command line: inside the sandbox's PID namespace, `$$` is not the host's pid.
  assert.equal(await processesMatching(sleep), 0, "the command ended with replio");
});

Deno.test("server-everything, configured as docs/mcp.md shows: a result that reads Error: but is no error succeeds", async () => {
  await cached();
  const { everything } = await documentedServers();
  await using wt = await mcpWorktree({ mcp_servers: { everything }, mcp_startup_wait: 30 });
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
  await using wt = await mcpWorktree({ mcp_servers: { files }, mcp_startup_wait: 30 }, {
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
    mcp_startup_wait: 30,
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
  // Still connecting: replio tools did not wait out the server's connect timeout (10 s), after
  // which it would read "failed". No clock is read: a busy machine makes this slower, not red.
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
      "replio tries again in 1 s; check mcp_servers.mid, or use another tool",
  );
  assert.match(
    await text("mcp__mid__echo", { text: "at once" }),
    /^Error: MCP server "mid" exited with code 3 and its last restart failed: replio tries again in 1 s: use another tool meanwhile$/,
  );
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
