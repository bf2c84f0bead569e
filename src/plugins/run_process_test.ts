import assert from "node:assert/strict";
import { join } from "node:path";
import {
  formatProcessResult,
  HEAD_LINES,
  keepHeadTail,
  MAX_LINE_CHARS,
  runProcess,
  TAIL_LINES,
} from "./run_process.ts";
import { isRunning, processesMatching } from "../../tests/support/process_state.ts";
import { HANG_MS } from "../../tests/support/deadline.ts";

/** A temp dir removed on dispose. */
async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_proc_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Blocks until the command writes a line into the FIFO: started, without sleeping. */
async function fifo(dir: string): Promise<{ path: string; read(): Promise<string> }> {
  const path = join(dir, "ready.fifo");
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success);
  return { path, read: () => Deno.readTextFile(path) };
}

const ENDED = {
  signal: null,
  timedOut: false,
  cancelled: false,
  omittedLines: 0,
  isolation: "none",
};

Deno.test("runProcess reports the exit code and merges stdout and stderr in order", async () => {
  await using dir = await tempDir();
  const result = await runProcess({
    command: "echo one; echo two >&2; echo three; exit 3",
    cwd: dir.path,
    timeoutMs: HANG_MS,
  });
  assert.deepEqual(
    { ...result, durationMs: 0 },
    { ...ENDED, exitCode: 3, output: "one\ntwo\nthree", durationMs: 0, timeoutMs: HANG_MS },
  );
});

Deno.test("runProcess runs in cwd with stdin closed and env added", async () => {
  await using dir = await tempDir();
  const result = await runProcess({
    command: 'pwd; cat; echo "[$REPLIO_PROBE]"',
    cwd: dir.path,
    timeoutMs: HANG_MS,
    env: { REPLIO_PROBE: "seen" },
  });
  assert.equal(result.output, `${dir.path}\n[seen]`);
  assert.equal(result.exitCode, 0);
});

Deno.test("runProcess reports the signal that ended the command", async () => {
  await using dir = await tempDir();
  const result = await runProcess({ command: "kill -9 $$", cwd: dir.path, timeoutMs: HANG_MS });
  assert.equal(result.exitCode, null);
  assert.equal(result.signal, "SIGKILL");
  assert.equal(formatProcessResult(result), "killed by SIGKILL");
});

/**
 * A sleep no other process runs, found by its command line: a timeout may end the command before
 * it wrote anything (how far it got in the time depends on the machine), so no pid file is read.
 */
function uniqueSleep(): string {
  return `sleep 300.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

Deno.test("runProcess timeout kills the whole process group", async () => {
  await using dir = await tempDir();
  const sleep = uniqueSleep();
  const result = await runProcess({
    command: `${sleep} & echo started; ${sleep}`,
    cwd: dir.path,
    timeoutMs: 300,
  });
  assert.equal(result.timedOut, true);
  // "started" unless the machine was too busy to get there in 0.3 s: either is right.
  assert.ok(["", "started"].includes(result.output), result.output);
  assert.equal(
    formatProcessResult({ ...result, output: "started" }),
    "timed out after 0.3s\nstarted",
  );
  assert.equal(await processesMatching(sleep), 0, "the background sleep died with the group");
});

Deno.test("runProcess kills children that ignore SIGTERM after the grace period", async () => {
  await using dir = await tempDir();
  const ready = await fifo(dir.path);
  const sleep = uniqueSleep();
  const controller = new AbortController();
  // Ended by the signal once it is known to ignore SIGTERM: a timeout (the same ending) could
  // come before the trap on a busy machine, and the test would prove nothing.
  const running = runProcess({
    command: `trap "" TERM; ${sleep} & echo go > ${ready.path}; ${sleep}`,
    cwd: dir.path,
    timeoutMs: 60_000,
    signal: controller.signal,
  });
  assert.equal(await ready.read(), "go\n");
  assert.ok(await processesMatching(sleep) >= 1, "the sleeps run before they are ended");
  controller.abort();
  const result = await running;
  assert.equal(result.cancelled, true);
  assert.equal(result.signal, "SIGKILL");
  assert.equal(await processesMatching(sleep), 0);
});

Deno.test("runProcess abort kills the process group and reports cancelled", async () => {
  await using dir = await tempDir();
  const ready = await fifo(dir.path);
  const pidFile = join(dir.path, "bg.pid");
  const controller = new AbortController();
  const running = runProcess({
    command: `sleep 300 & echo $! > ${pidFile}; echo go > ${ready.path}; sleep 300`,
    cwd: dir.path,
    timeoutMs: 60_000,
    signal: controller.signal,
  });
  assert.equal(await ready.read(), "go\n");
  controller.abort();
  const result = await running;
  assert.equal(result.cancelled, true);
  assert.equal(result.timedOut, false);
  assert.equal(formatProcessResult(result), "cancelled");
  assert.equal(await isRunning(Number(await Deno.readTextFile(pidFile))), false);
});

Deno.test("runProcess does not start when the signal is already aborted", async () => {
  await using dir = await tempDir();
  const controller = new AbortController();
  controller.abort();
  const result = await runProcess({
    command: "touch marker",
    cwd: dir.path,
    timeoutMs: HANG_MS,
    signal: controller.signal,
  });
  assert.equal(result.cancelled, true);
  await assert.rejects(Deno.stat(join(dir.path, "marker")), Deno.errors.NotFound);
});

Deno.test("runProcess returns when a background job keeps the output open", async () => {
  await using dir = await tempDir();
  const pidFile = join(dir.path, "bg.pid");
  const result = await runProcess({
    command: `sleep 300 & echo $! > ${pidFile}; echo done`,
    cwd: dir.path,
    timeoutMs: 60_000,
  });
  const pid = Number(await Deno.readTextFile(pidFile));
  Deno.kill(pid, "SIGKILL");
  assert.deepEqual([result.exitCode, result.output, result.timedOut], [0, "done", false]);
});

Deno.test("runProcess keeps head and tail of long output with the exact count omitted", async () => {
  await using dir = await tempDir();
  const result = await runProcess({ command: "seq 1 1000", cwd: dir.path, timeoutMs: HANG_MS });
  const lines = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => String(from + i));
  const expected = [
    ...lines(1, HEAD_LINES),
    `... (${1000 - HEAD_LINES - TAIL_LINES} lines omitted) ...`,
    ...lines(1001 - TAIL_LINES, 1000),
  ].join("\n");
  assert.equal(result.output, expected);
  assert.equal(result.omittedLines, 1000 - HEAD_LINES - TAIL_LINES);
});

Deno.test("keepHeadTail keeps short text whole", () => {
  assert.deepEqual(keepHeadTail("a\nb\n"), { text: "a\nb", omittedLines: 0 });
  assert.deepEqual(keepHeadTail(""), { text: "", omittedLines: 0 });
});

Deno.test("keepHeadTail counts a single omitted line", () => {
  assert.deepEqual(keepHeadTail("1\n2\n3", { headLines: 1, tailLines: 1 }), {
    text: "1\n... (1 line omitted) ...\n3",
    omittedLines: 1,
  });
});

Deno.test("keepHeadTail cuts long lines and keeps what follows a carriage return", () => {
  const long = "x".repeat(MAX_LINE_CHARS + 25);
  assert.deepEqual(keepHeadTail(`${long}\n10%\r50%\r100%\nend\r\n`), {
    text: `${"x".repeat(MAX_LINE_CHARS)} ... (25 chars omitted)\n100%\nend`,
    omittedLines: 0,
  });
});

Deno.test("runProcess names a missing cwd", async () => {
  await using dir = await tempDir();
  const cwd = join(dir.path, "nope");
  await assert.rejects(runProcess({ command: "true", cwd, timeoutMs: HANG_MS }), {
    name: "NotFound",
    message: `Cannot run in "${cwd}": no such directory: pass an existing directory`,
  });
});

Deno.test({
  name: "runProcess names the missing run permission",
  permissions: { read: true, write: true, run: ["bash"] },
  async fn() {
    await using dir = await tempDir();
    await assert.rejects(runProcess({ command: "true", cwd: dir.path, timeoutMs: HANG_MS }), {
      name: "NotCapable",
      message: 'Cannot run commands: replio may not run "setsid", which puts each command in ' +
        "its own process group: restart it with --allow-run (or add setsid and bash to its list)",
    });
  },
});

Deno.test("runProcess counts the lines it skips exactly as keepHeadTail splits them", async () => {
  await using wt = await tempDir();
  // Plain lines, CRLF lines and progress-style lines rewritten by a bare CR, in many chunks.
  const command = `awk 'BEGIN{for(i=1;i<=200000;i++){ if(i%3==0) printf "x%d\\r\\n", i; ` +
    `else if(i%5==0) printf "p%d\\rq%d\\n", i, i; else print "l" i}}'`;
  const whole = await new Deno.Command("bash", { args: ["-c", command], stdout: "piped" }).output();
  const expected = keepHeadTail(new TextDecoder().decode(whole.stdout));
  const result = await runProcess({ command, cwd: wt.path, timeoutMs: 60_000 });
  assert.equal(result.omittedLines, expected.omittedLines);
  assert.equal(result.output, expected.text);
  assert.equal(result.omittedLines, 200_000 - HEAD_LINES - TAIL_LINES);
});
