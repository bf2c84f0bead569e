/**
 * No front-end leaves a process behind (issue #23). Each test runs one front-end of replio in a
 * worktree whose global config starts an MCP stdio server that ignores SIGTERM and starts a child
 * of its own, and a user plugin (a Worker), while the mock model has a command run (so a spare
 * shell waits for the next) and, where the front-end is stopped mid-turn, a long `sleep` running.
 * After the front-end has exited, every process it started must go: found by the mark its
 * environment passes on to every child, by the words in their argv and by the pids the MCP server
 * wrote (tests/support/process_census.ts), wherever they were re-parented. Before the end, the
 * test waits until the census has seen each kind of process, so a mark that stopped reaching one
 * would fail rather than pass unseen. Besides each front-end's own ending, signals no front-end
 * handles (at start-up, SIGHUP to the REPL, SIGTERM to `replio mcp`) must end replio through its
 * exit path too (src/cli/exit_signals.ts). The controls show that the census finds a detached
 * process, and that without replio's exit path (SIGKILL) the MCP server, its child and an
 * unsandboxed command do stay behind.
 */
import assert from "node:assert/strict";
import { waitUntil, withDeadline } from "./support/deadline.ts";
import { MAIN, replioCommand, runReplio } from "./support/replio_process.ts";
import {
  describeProcess,
  type LiveProcess,
  MARK_VARIABLE,
  markedProcesses,
  waitForNoneMarked,
} from "./support/process_census.ts";
import {
  awaitNoneLeft,
  awaitStarted,
  DONE_TEXT,
  orphanScene,
  QUICK_CALLS,
} from "./support/orphan_scene.ts";
import { TmuxRepl } from "./support/tmux_repl.ts";

const DONE = { text: DONE_TEXT };

/** Signal numbers on Linux: a process ended by one exits with 128 plus its number. */
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

/** A spawned replio's output, read to the end as it comes, so its pipes never fill. */
interface Watched {
  /** Settles when `find` returns something for the output so far, or with null at the exit. */
  until<T>(find: (output: string) => T | undefined): Promise<T | null>;
  /** The exit code and all it printed, once it has exited. */
  ended: Promise<{ code: number; output: string }>;
}

function watch(child: Deno.ChildProcess): Watched {
  let output = "";
  const listeners = new Set<() => void>();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      output += text;
      for (const listener of listeners) listener();
    }
  };
  const ended = Promise.all([pump(child.stdout), pump(child.stderr), child.status])
    .then(([, , status]) => ({ code: status.code, output }));
  return {
    ended,
    until<T>(find: (output: string) => T | undefined) {
      const found = Promise.withResolvers<T>();
      const listener = () => {
        const value = find(output);
        if (value !== undefined) found.resolve(value);
      };
      listeners.add(listener);
      listener();
      return Promise.race([found.promise, ended.then(() => find(output) ?? null)])
        .finally(() => listeners.delete(listener));
    },
  };
}

Deno.test("replio tools leaves no process behind", async () => {
  await using scene = await orphanScene({ script: () => [] });
  const listed = await runReplio(["tools", "--json"], { cwd: scene.wt.path, env: scene.env });
  assert.equal(listed.code, 0, listed.stderr);
  const listing = JSON.parse(listed.stdout);
  assert.deepEqual(listing.mcp_servers, [{ name: "stubborn", state: "ready", tools: 1 }]);
  assert.ok(listing.tools.some((t: { name: string }) => t.name === "greet"), listed.stdout);
  await awaitNoneLeft(scene, "replio tools");
});

Deno.test("replio tool run_command leaves no process behind", async () => {
  await using scene = await orphanScene({ script: () => [] });
  const ran = await runReplio(
    ["tool", "run_command", JSON.stringify({ command: "echo tool" }), "--yes"],
    { cwd: scene.wt.path, env: scene.env },
  );
  assert.deepEqual([ran.code, ran.stdout], [0, "exit 0\ntool\n"], ran.stderr);
  await awaitNoneLeft(scene, "replio tool");
});

Deno.test("replio run leaves no process behind when its turn ends", async () => {
  await using scene = await orphanScene({ script: () => [QUICK_CALLS, DONE] });
  const ran = await runReplio(["run", "go", "--yes", ...scene.modelArgs], {
    cwd: scene.wt.path,
    env: scene.env,
  });
  assert.deepEqual([ran.code, ran.stdout], [0, `${DONE_TEXT}\n`], ran.stderr);
  await awaitNoneLeft(scene, "replio run");
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test(`replio run leaves no process behind when ${signal} stops it mid-command`, async () => {
    await using scene = await orphanScene({ script: (long) => [QUICK_CALLS, long] });
    const child = replioCommand(["run", "go", "--yes", ...scene.modelArgs], {
      cwd: scene.wt.path,
      env: scene.env,
    }).spawn();
    const run = watch(child);
    await awaitStarted(scene, { long: true });
    child.kill(signal);
    const { code, output } = await withDeadline(run.ended, `replio run's exit after ${signal}`);
    assert.equal(code, 130, output);
    await awaitNoneLeft(scene, `replio run stopped by ${signal}`);
  });
}

for (const how of ["/exit", "Ctrl-D"] as const) {
  Deno.test(`the REPL leaves no process behind when it ends with ${how}`, async () => {
    await using scene = await orphanScene({ script: () => [QUICK_CALLS, DONE] });
    await using repl = await TmuxRepl.start(scene.wt.path, scene.modelArgs, {
      noColor: true,
      env: scene.env,
    });
    await repl.enter("go");
    await repl.waitFor(DONE_TEXT);
    await repl.waitForPrompt();
    await awaitStarted(scene, { spare: true });
    if (how === "/exit") await repl.enter("/exit");
    else await repl.keys("C-d");
    await repl.waitForExit();
    await awaitNoneLeft(scene, `the REPL ended with ${how}`);
  });
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`replio serve leaves no process behind when ${signal} stops it mid-command`, async () => {
    await using scene = await orphanScene({ script: (long) => [QUICK_CALLS, DONE, long] });
    const child = replioCommand(["serve", "--port", "0", "--yes", ...scene.modelArgs], {
      cwd: scene.wt.path,
      env: scene.env,
    }).spawn();
    const serve = watch(child);
    const base = await withDeadline(
      serve.until((output) => /^listening (http:\S+)$/m.exec(output)?.[1]),
      "replio serve's listening line",
    );
    if (!base) assert.fail(`replio serve did not start:\n${(await serve.ended).output}`);
    const post = (prompt: string) =>
      fetch(`${base}/v1/turns`, { method: "POST", body: JSON.stringify({ prompt }) })
        .then((response) => response.json());
    assert.equal((await post("go")).status, "ok");
    await awaitStarted(scene, { spare: true });
    const longTurn = post("again");
    await awaitStarted(scene, { long: true });
    child.kill(signal);
    assert.equal((await withDeadline(longTurn, "the cancelled turn's answer")).status, "cancelled");
    const { code, output } = await withDeadline(serve.ended, `replio serve's exit after ${signal}`);
    assert.equal(code, 0, output);
    await awaitNoneLeft(scene, `replio serve stopped by ${signal}`);
  });
}

Deno.test("replio serve leaves no process behind when SIGTERM comes as soon as it says it listens", async () => {
  await using scene = await orphanScene({ script: () => [] });
  const child = replioCommand(["serve", "--port", "0", ...scene.modelArgs], {
    cwd: scene.wt.path,
    env: scene.env,
  }).spawn();
  const serve = watch(child);
  const line = await withDeadline(
    serve.until((output) => /^listening /m.exec(output)?.[0]),
    "replio serve's listening line",
  );
  // A client that has read the line may stop the server at once: it must stop as asked.
  child.kill("SIGTERM");
  const { code, output } = await withDeadline(serve.ended, "replio serve's exit after SIGTERM");
  assert.deepEqual([line, code], ["listening ", 0], output);
  await awaitNoneLeft(scene, "replio serve stopped as soon as it listened");
});

const MCP_ENDINGS = [
  { how: "its client closes stdin", sandbox: undefined },
  // What the MCP SDK's client sends a server that has not exited 2 s after its stdin closed.
  { how: "SIGTERM comes", sandbox: undefined },
  { how: "SIGTERM comes", sandbox: "off" },
] as const;

for (const { how, sandbox } of MCP_ENDINGS) {
  const where = sandbox ? " (sandbox off)" : "";
  Deno.test(`replio mcp leaves no process behind when ${how} mid-command${where}`, async () => {
    await using scene = await orphanScene({ script: () => [], ...sandbox ? { sandbox } : {} });
    const child = replioCommand(["mcp", "--yes"], {
      cwd: scene.wt.path,
      env: scene.env,
      stdin: "",
    }).spawn();
    const mcp = watch(child);
    const writer = child.stdin.getWriter();
    const send = (message: Record<string, unknown>) =>
      writer.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"));
    let nextId = 0;
    /** Sends a request; settles with its response (null if replio exited first). */
    const request = async (method: string, params: Record<string, unknown>) => {
      const id = ++nextId;
      await send({ id, method, params });
      return await mcp.until((output) =>
        output.split("\n").map(parseLine).find((message) => message?.id === id)
      );
    };
    const callTool = (name: string, args: Record<string, unknown>) =>
      request("tools/call", { name, arguments: args });
    const initialized = await withDeadline(
      request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "no-orphans", version: "1" },
      }),
      "replio mcp's answer to initialize",
    );
    if (!initialized?.result) {
      assert.fail(`replio mcp did not initialize:\n${JSON.stringify(initialized)}`);
    }
    await send({ method: "notifications/initialized" });
    const quick = await withDeadline(callTool("run_command", { command: "echo quick" }), "echo");
    assert.deepEqual(quick?.result, {
      content: [{ type: "text", text: "exit 0\nquick" }],
      isError: false,
    });
    assert.ok((await withDeadline(callTool("greet", {}), "the plugin's answer"))?.result);
    await awaitStarted(scene, { spare: true });
    const long = callTool("run_command", { command: scene.longCommand });
    await awaitStarted(scene, { long: true });
    if (how === "SIGTERM comes") child.kill("SIGTERM");
    else await writer.close();
    const { code, output } = await withDeadline(mcp.ended, `replio mcp's exit after ${how}`);
    assert.equal(code, how === "SIGTERM comes" ? 128 + SIGNAL_NUMBERS.SIGTERM : 0, output);
    await long;
    await writer.close().catch(() => {});
    await awaitNoneLeft(scene, `replio mcp after ${how}${where}`);
  });
}

for (const [frontEnd, signal] of [["run", "SIGINT"], ["tools", "SIGTERM"]] as const) {
  Deno.test(`replio ${frontEnd} leaves no process behind when ${signal} comes while MCP servers start`, async () => {
    await using scene = await orphanScene({ script: () => [], slowServer: true });
    const args = frontEnd === "run" ? ["run", "go", "--yes", ...scene.modelArgs] : ["tools"];
    const child = replioCommand(args, { cwd: scene.wt.path, env: scene.env }).spawn();
    const started = watch(child);
    // The stubborn server is up; replio waits for the slow one, before any front-end's own work.
    await awaitStarted(scene, {});
    child.kill(signal);
    const { code, output } = await withDeadline(started.ended, `replio's exit after ${signal}`);
    assert.equal(code, 128 + SIGNAL_NUMBERS[signal], output);
    await awaitNoneLeft(scene, `replio ${frontEnd} stopped by ${signal} at start-up`);
  });
}

Deno.test("the REPL leaves no process behind when its terminal hangs up (SIGHUP)", async () => {
  await using scene = await orphanScene({ script: () => [QUICK_CALLS, DONE] });
  await using repl = await TmuxRepl.start(scene.wt.path, scene.modelArgs, {
    noColor: true,
    env: scene.env,
  });
  await repl.enter("go");
  await repl.waitFor(DONE_TEXT);
  await repl.waitForPrompt();
  await awaitStarted(scene, { spare: true });
  // What a closed terminal window sends; the process is replio's, found by its mark and argv.
  const replio = (await markedProcesses({ mark: scene.census.mark }))
    .filter((p) => p.argv.includes(MAIN));
  assert.equal(replio.length, 1, replio.map(describeProcess).join("\n"));
  Deno.kill(replio[0]!.pid, "SIGHUP");
  await repl.waitForExit();
  await awaitNoneLeft(scene, "the REPL after SIGHUP");
});

/** A line of MCP output as a message, or undefined for a partial line or other text. */
function parseLine(line: string): { id?: number; result?: unknown } | undefined {
  try {
    return JSON.parse(line);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
}

Deno.test("markedProcesses finds a detached process by its mark, and waitForNoneMarked names it (control)", async () => {
  const mark = crypto.randomUUID();
  const seconds = `3600.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  // setsid -f forks and its parent exits at once: the sleep is re-parented, in a session of its
  // own, like a process that escaped the process group replio kills.
  const started = await new Deno.Command("setsid", {
    args: ["-f", "nohup", "sleep", seconds],
    env: { [MARK_VARIABLE]: mark },
    stdout: "null",
    stderr: "null",
  }).output();
  assert.equal(started.code, 0);
  let found: LiveProcess[] = [];
  // The forked child is seen first as setsid, then as nohup, until it execs the sleep: wait
  // for the sleep itself.
  await waitUntil(
    async () =>
      (found = await markedProcesses({ mark })).length > 0 && found[0]!.argv[0] === "sleep",
    "the sleep",
  );
  assert.deepEqual(found.map((p) => p.argv), [["sleep", seconds]]);
  const [sleep] = found;
  assert.equal(sleep!.sid, sleep!.pid, "the sleep leads a session of its own");
  assert.notEqual(sleep!.ppid, Deno.pid, "the sleep is no child of this test");
  // Deadline 0: the census sees the sleep at once, fails naming it, and kills it.
  await assert.rejects(
    waitForNoneMarked({ mark }, "the detached sleep", { ms: 0 }),
    (error: Error) => error.message.includes(describeProcess(sleep!)),
  );
  await waitForNoneMarked({ mark }, "the killed sleep");
});

Deno.test("replio killed by SIGKILL leaves its MCP server, that server's child and an unsandboxed command behind (control)", async () => {
  await using scene = await orphanScene({
    script: (long) => [QUICK_CALLS, long],
    sandbox: "off",
  });
  const child = replioCommand(["run", "go", "--yes", ...scene.modelArgs], {
    cwd: scene.wt.path,
    env: scene.env,
  }).spawn();
  const run = watch(child);
  await awaitStarted(scene, { long: true });
  // SIGKILL leaves replio no exit path: what the exit path would end stays. (A sandboxed command
  // would not: bubblewrap's --die-with-parent ends it.)
  child.kill("SIGKILL");
  await withDeadline(run.ended, "replio's exit after SIGKILL");
  const expected = [
    (line: string) => line.includes("mcp_stubborn_server.ts"),
    (line: string) => line.endsWith(": sleep 600"),
    (line: string) => line.endsWith(`: ${scene.longCommand}`),
  ];
  // Deadline 0: what runs right after replio's death is reported (and then killed).
  await assert.rejects(
    awaitNoneLeft(scene, "replio killed by SIGKILL", { ms: 0 }),
    (error: Error) => {
      const lines = error.message.split("\n");
      return expected.every((isSurvivor) => lines.some(isSurvivor));
    },
  );
});
