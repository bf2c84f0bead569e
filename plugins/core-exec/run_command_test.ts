import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionRecord } from "../../src/tools/mod.ts";
import type { TurnEvent } from "../../src/ui/events.ts";
import { HEAD_LINES, TAIL_LINES } from "../../src/plugins/api.ts";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { processesMatching } from "../../tests/support/process_state.ts";
import { withDeadline } from "../../tests/support/deadline.ts";
import { withGrowingTimeout } from "../../tests/support/growing_timeout.ts";

Deno.test("run_command reports the exit code with merged output", async () => {
  await using wt = await tempWorktree();
  const out = await runTool(wt, "run_command", { command: "echo out; echo err >&2; exit 3" });
  assert.equal(out, "exit 3\nout\nerr");
});

Deno.test("run_command runs in the worktree and in cwd", async () => {
  await using wt = await tempWorktree({ "sub/a.txt": "" });
  assert.equal(await runTool(wt, "run_command", { command: "pwd" }), `exit 0\n${wt.path}`);
  assert.equal(
    await runTool(wt, "run_command", { command: "pwd; ls", cwd: "sub" }),
    `exit 0\n${join(wt.path, "sub")}\na.txt`,
  );
});

Deno.test("run_command answers to its aliases bash and exec", async () => {
  await using wt = await tempWorktree();
  assert.equal(await runTool(wt, "bash", { command: "echo hi" }), "exit 0\nhi");
  assert.equal(await runTool(wt, "exec", { command: "true" }), "exit 0");
});

Deno.test("run_command refuses a missing cwd and an empty command", async () => {
  await using wt = await tempWorktree({ "f.txt": "" });
  assert.equal(
    await runTool(wt, "run_command", { command: "ls", cwd: "nope" }),
    'Error: Cannot run in "nope": no such directory: pass an existing cwd or omit it',
  );
  assert.equal(
    await runTool(wt, "run_command", { command: "ls", cwd: "f.txt" }),
    'Error: Cannot run in "f.txt": not a directory: pass a directory as cwd',
  );
  assert.equal(
    await runTool(wt, "run_command", { command: "  " }),
    "Error: Cannot run an empty command: pass the shell command line to run",
  );
});

/**
 * A `sleep` no other process runs: the sandbox gives commands their own PID namespace, so a pid
 * the command prints is not the host's; the command line is found from outside either way.
 */
function uniqueSleep(): string {
  return `sleep 300.${Math.floor(Math.random() * 1e9)}`;
}

Deno.test("run_command timeout kills the command's whole process group", async () => {
  await using wt = await tempWorktree();
  const sleep = uniqueSleep();
  // The timeout counts from the start, so a busy machine may not reach the echo within it: that
  // run printed nothing, and the test runs again with a longer timeout.
  const { result: out, seconds } = await withGrowingTimeout(
    "the command to print before its timeout",
    (timeout) =>
      runTool(wt, "run_command", { command: `${sleep} & echo started; ${sleep}`, timeout }),
    (out, seconds) => out === `timed out after ${seconds}s`,
  );
  assert.equal(out, `timed out after ${seconds}s\nstarted`);
  assert.equal(await processesMatching(sleep), 0, "the background sleep died with the group");
});

Deno.test("run_command takes its default timeout from tool_timeout", async () => {
  await using wt = await tempWorktree();
  const sleep = uniqueSleep();
  const { result: out, seconds } = await withGrowingTimeout(
    "the command to print before its timeout",
    (timeout) =>
      runTool(wt, "run_command", { command: `echo started; ${sleep}` }, {
        config: { tool_timeout: timeout },
      }),
    (out, seconds) => out === `timed out after ${seconds}s`,
  );
  assert.equal(out, `timed out after ${seconds}s\nstarted`);
  assert.equal(await processesMatching(sleep), 0);
});

Deno.test("run_command cancelled by the turn's signal kills the process group", async () => {
  await using wt = await tempWorktree();
  const fifo = join(wt.path, "ready.fifo");
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  const controller = new AbortController();
  const sleep = uniqueSleep();
  const running = runTool(wt, "run_command", {
    command: `${sleep} & echo go > ${fifo}; ${sleep}`,
  }, { signal: controller.signal });
  assert.equal(await Deno.readTextFile(fifo), "go\n"); // blocks until the command is running
  // Control: the check sees the sleeps while they run.
  assert.ok(await processesMatching(sleep) >= 1, "the sleeps run before the cancel");
  controller.abort();
  assert.equal(await running, "Error: cancelled by the user");
  assert.equal(await processesMatching(sleep), 0);
});

Deno.test("run_command keeps head and tail of long output with the exact count omitted", async () => {
  await using wt = await tempWorktree();
  const out = await runTool(wt, "run_command", { command: "seq 1 5000" });
  const range = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  assert.equal(
    out,
    [
      "exit 0",
      ...range(1, HEAD_LINES),
      `... (${5000 - HEAD_LINES - TAIL_LINES} lines omitted) ...`,
      ...range(5001 - TAIL_LINES, 5000),
    ].join("\n"),
  );
});

Deno.test("run_command in a cwd outside the worktree is not allowed by bash_allow", async () => {
  await using wt = await tempWorktree();
  await using outside = await tempWorktree({ "secret.txt": "" });
  const audit: PermissionRecord[] = [];
  const denied = await invokeInWorktree(wt, "run_command", { command: "ls", cwd: outside.path }, {
    config: { "tool_permission.bash_allow": ["ls"] },
    headless: "no",
    audit,
  });
  assert.equal(denied.decision, "denied");
  assert.equal(
    audit[0]?.reason,
    `bash_allow: cwd "${outside.path}" is outside the worktree; headless`,
  );
  const confirmed = await runTool(wt, "run_command", { command: "ls", cwd: outside.path }, {
    config: { "tool_permission.bash_allow": ["ls"] },
    headless: "yes",
  });
  assert.equal(confirmed, "exit 0\nsecret.txt");
});

Deno.test("run_command runs an allowed command without asking", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(wt, "run_command", { command: "cat a.txt | cat" }, {
    config: { "tool_permission.bash_allow": ["cat"], "tool_permission.bash": "allow" },
    headless: "no",
    audit,
  });
  assert.deepEqual([outcome.output, outcome.decision], ["exit 0\nhello", "granted"]);
  assert.deepEqual([audit[0]?.action, audit[0]?.reason], [
    "allow",
    "tool_permission.bash; bash_allow covers it",
  ]);
});

Deno.test("run_command without bash_allow keeps the base action", async () => {
  await using wt = await tempWorktree();
  const audit: PermissionRecord[] = [];
  await invokeInWorktree(wt, "run_command", { command: "touch marker" }, {
    headless: "no",
    audit,
  });
  assert.deepEqual([audit[0]?.action, audit[0]?.reason], ["ask", "tool_permission.bash; headless"]);
  await assert.rejects(Deno.stat(join(wt.path, "marker")), Deno.errors.NotFound);
});

/** Records events like a renderer, and creates `file` at the first live progress update. */
class ProgressSeeingSink extends RecordingSink {
  constructor(readonly file: string) {
    super();
  }
  override emit(event: TurnEvent): void {
    super.emit(event);
    if (event.type === "tool_progress") Deno.writeTextFileSync(this.file, "");
  }
}

Deno.test("run_command shows its last lines live while it runs, as tool_progress events", async () => {
  await using wt = await tempWorktree();
  const sink = new ProgressSeeingSink(join(wt.path, "seen"));
  // The command ends only once the test has seen a live update: it runs as long as that takes.
  const command = "for i in 1 2 3 4 5; do echo line $i; done; " +
    "until [ -e seen ]; do sleep 0.05; done; for i in 6 7 8 9 10; do echo line $i; done";
  const outcome = await withDeadline(
    invokeInWorktree(wt, "run_command", { command }, { sink }),
    "a live update of the running command",
  );
  const all = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
  assert.equal(outcome.output, `exit 0\n${all.join("\n")}`);
  const live = sink.events.filter((e) => e.type === "tool_progress");
  assert.ok(live.length > 0);
  for (const event of live) {
    assert.equal(event.id, "call_1");
    assert.ok(event.lines.length > 0 && event.lines.length <= 8);
    // Each update is the latest stretch of the output, in order.
    const start = all.indexOf(event.lines[0]!);
    assert.deepEqual(event.lines, all.slice(start, start + event.lines.length));
  }
  // Progress comes between the call and its result.
  const types = sink.events.map((e) => e.type);
  assert.ok(types.indexOf("tool_call") < types.indexOf("tool_progress"));
  assert.ok(types.lastIndexOf("tool_progress") < types.indexOf("tool_result"));
});

Deno.test("run_command stops a command silent for idle_timeout and returns what it printed", async () => {
  await using wt = await tempWorktree();
  const sleep = uniqueSleep();
  // Output so far restarts the idle clock; a busy machine may leave a second between the two
  // echoes, or before the first: such a run ends early, and the test runs again with longer.
  const { result: printed, seconds } = await withGrowingTimeout(
    "the command to print both lines before going silent",
    (idle_timeout) =>
      runTool(wt, "run_command", {
        command: `echo started; echo waiting for input; ${sleep}`,
        idle_timeout,
      }),
    (out, seconds) =>
      [
        `stopped after ${seconds}s without output`,
        `stopped after ${seconds}s without output\nstarted`,
      ]
        .includes(out),
  );
  assert.equal(printed, `stopped after ${seconds}s without output\nstarted\nwaiting for input`);
  const fromConfig = await withGrowingTimeout(
    "the command to print before going silent",
    (idle) =>
      runTool(wt, "run_command", { command: `echo a; ${sleep}` }, {
        config: { tool_idle_timeout: idle },
      }),
    (out, seconds) => out === `stopped after ${seconds}s without output`,
  );
  assert.equal(fromConfig.result, `stopped after ${fromConfig.seconds}s without output\na`);
  assert.equal(await processesMatching(sleep), 0);
});
