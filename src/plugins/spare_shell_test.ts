import assert from "node:assert/strict";
import { join } from "../fs/path.ts";
import { Config } from "../config/mod.ts";
import { runProcess, type RunProcessOptions } from "./run_process.ts";
import { bwrapUsable, planSandbox } from "./sandbox_bwrap.ts";
import { keepSpareShells, SPARE_SCRIPT, waitingSparePid } from "./spare_shell.ts";
import { isRunning, processesMatching } from "../../tests/support/process_state.ts";
import { HANG_MS, waitUntil, withDeadline } from "../../tests/support/deadline.ts";

const noBwrap = !bwrapUsable();

async function tempDir(dir?: string): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "replio_spare_", ...dir ? { dir } : {} }),
  );
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Waits (with a deadline only a hang reaches) until a spare waits, and returns its pid. */
async function spareStarted(): Promise<number> {
  await waitUntil(() => waitingSparePid() !== undefined, "a spare shell after the first command");
  return waitingSparePid()!;
}

function until(what: string, check: () => Promise<boolean>): Promise<void> {
  return waitUntil(check, `until ${what}`);
}

/** Runs a command that ends by itself: its timeout is one only a hang reaches. */
const run = (options: Omit<RunProcessOptions, "timeoutMs">) =>
  runProcess({ timeoutMs: HANG_MS, ...options });

Deno.test("a command after another runs in the spare started for it, as a fresh shell would", async () => {
  await using dir = await tempDir();
  await using _spares = keepSpareShells();
  const same = { cwd: dir.path, env: { REPLIO_PROBE: "seen" } };
  await run({ ...same, command: "true" });
  const spare = await spareStarted();
  const result = await run({
    ...same,
    // $$ is the spare's pid: the command is the spare's bash, exec'd again.
    command: 'echo "$$ $0"; echo two >&2; cat; pwd; echo "[$REPLIO_PROBE]"; exit 3',
  });
  assert.equal(result.output, `${spare} bash\ntwo\n${dir.path}\n[seen]`);
  assert.equal(result.exitCode, 3);
});

Deno.test("a spare serves no command that would start otherwise: another cwd or environment", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "sub"));
  await using _spares = keepSpareShells();
  await run({ cwd: dir.path, command: "true" });
  const spare = await spareStarted();
  const elsewhere = await run({ cwd: join(dir.path, "sub"), command: 'echo "$$"; pwd' });
  assert.equal(elsewhere.output, `${elsewhere.output.split("\n")[0]}\n${join(dir.path, "sub")}`);
  assert.notEqual(elsewhere.output.split("\n")[0], String(spare));
  await until("the unused spare has exited", async () => !(await isRunning(spare)));

  // Control: the same start is served by the spare that the last command left.
  const next = await spareStarted();
  const same = await run({ cwd: join(dir.path, "sub"), command: 'echo "$$"' });
  assert.equal(same.output, String(next));
  const otherEnv = await run({
    cwd: join(dir.path, "sub"),
    env: { REPLIO_PROBE: "x" },
    command: 'echo "$$ $REPLIO_PROBE"',
  });
  assert.notEqual(otherEnv.output, `${await spareStarted()} x`);
  assert.match(otherEnv.output, / x$/);
});

Deno.test("a command cut short on its way to a spare never runs; a whole one does", async () => {
  await using dir = await tempDir();
  const marker = join(dir.path, "ran");
  const mark = "\n#end-mark-1234";
  const spare = (input: string) => {
    const child = new Deno.Command("bash", {
      args: ["-c", SPARE_SCRIPT, "bash", mark],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    return writer.write(new TextEncoder().encode(input)).then(() => writer.close())
      .then(() => child.output());
  };
  const cut = await spare(`touch ${marker}`);
  assert.equal(cut.code, 112);
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  // A mark that is cut short is no mark either.
  await spare(`touch ${marker}${mark.slice(0, -1)}`);
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  const whole = await spare(`touch ${marker}; echo "$0"${mark}`);
  assert.equal(whole.code, 0);
  assert.equal(new TextDecoder().decode(whole.stdout), "bash\n");
  await Deno.stat(marker);
});

Deno.test("the timeout ends a command a spare runs, and its whole group", async () => {
  await using dir = await tempDir();
  await using _spares = keepSpareShells();
  await run({ cwd: dir.path, command: "true" });
  const spare = await spareStarted();
  const sleeper = `sleep 300.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  const result = await runProcess({
    cwd: dir.path,
    command: `${sleeper} & echo "$$"; wait`,
    timeoutMs: 500,
  });
  assert.equal(result.timedOut, true);
  // Whether the command reached its echo within the half second depends on the machine; that it
  // ran in the spare is the first test's, and whatever it started dies with its group.
  assert.ok(["", String(spare)].includes(result.output), result.output);
  assert.equal(await processesMatching(sleeper), 0);
});

Deno.test("the spare ends when its holder lets go", async () => {
  await using dir = await tempDir();
  const spares = keepSpareShells();
  await run({ cwd: dir.path, command: "true" });
  const spare = await spareStarted();
  await spares[Symbol.asyncDispose]();
  assert.equal(waitingSparePid(), undefined);
  assert.equal(await isRunning(spare), false);
  // Without a holder, no spare is started.
  await run({ cwd: dir.path, command: "true" });
  // A spare would be started by a timer set when the command ended, so before this one: had
  // one been started, it would be by the time this one fires, however busy the machine.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(waitingSparePid(), undefined);
});

Deno.test("a spare let go of the moment it is spawned still ends (before it leads its own group)", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 30; i++) {
    const spares = keepSpareShells();
    await run({ cwd: dir.path, command: "true" });
    // Polled without delay, so the release lands right after the spawn, before setsid has run.
    while (waitingSparePid() === undefined) await new Promise((resolve) => setTimeout(resolve, 0));
    await withDeadline(
      spares[Symbol.asyncDispose](),
      `release ${i + 1} (it waits for a spare that never ends)`,
    );
  }
});

for (const mode of ["off", "bwrap"] as const) {
  Deno.test({
    name: `spares end when replio is killed (sandbox.mode ${mode})`,
    ignore: mode === "bwrap" && noBwrap,
    async fn() {
      await using dir = await tempDir();
      // Present, so the sandbox puts no stand-in there (a command with one gets no spare).
      await Deno.mkdir(join(dir.path, ".git"));
      await Deno.mkdir(join(dir.path, ".replio"));
      const script = join(dir.path, "holder.ts");
      const here = import.meta.dirname!;
      await Deno.writeTextFile(
        script,
        `import { Config } from "${join(here, "../config/mod.ts")}";
import { runProcess } from "${join(here, "run_process.ts")}";
import { planSandbox } from "${join(here, "sandbox_bwrap.ts")}";
import { keepSpareShells, waitingSparePid } from "${join(here, "spare_shell.ts")}";
const config = Config.defaults().with({ "sandbox.mode": "${mode}" });
await using _s = keepSpareShells();
const options = { cwd: "${dir.path}", command: "true", timeoutMs: ${HANG_MS}, config };
await runProcess({ ...options, sandbox: planSandbox(config, "${dir.path}") });
while (waitingSparePid() === undefined) await new Promise((r) => setTimeout(r, 10));
console.log(waitingSparePid());
await new Promise(() => setInterval(() => {}, 1000));
`,
      );
      const holder = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--no-config", script],
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const { value } = await reader.read();
      const spare = Number(value?.trim());
      assert.ok(spare > 0 && await isRunning(spare), `a spare runs (${value})`);
      holder.kill("SIGKILL");
      await holder.status;
      await reader.cancel();
      await until("the spare has exited", async () => !(await isRunning(spare)));
    },
  });
}

Deno.test({
  name: "a sandboxed spare keeps the sandbox, and one bound to a replaced folder is not used",
  ignore: noBwrap,
  async fn() {
    await using dir = await tempDir();
    await Deno.mkdir(join(dir.path, ".git"));
    await Deno.mkdir(join(dir.path, ".replio"));
    const config = Config.defaults().with({ "sandbox.mode": "bwrap" });
    const sandbox = planSandbox(config, dir.path);
    const options = { cwd: dir.path, config, sandbox };
    await using _spares = keepSpareShells();
    await run({ ...options, command: "true" });
    await spareStarted();
    // Outside the worktree and outside /tmp (which the sandbox replaces with its own).
    await using elsewhere = await tempDir("/var/tmp");
    const outside = join(elsewhere.path, "escaped");
    const served = await run({
      ...options,
      command: `touch ${outside}; touch .git/hook; echo ok > inside.txt`,
    });
    assert.match(served.output, /Read-only file system[\s\S]*Read-only file system/);
    await assert.rejects(Deno.stat(outside), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(join(dir.path, ".git/hook")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(dir.path, "inside.txt")), "ok\n");

    // .git replaced while a spare waits: its read-only bind moves with the old folder, and the
    // new one would be writable in it, so it must not serve; a fresh sandbox binds the new one.
    await spareStarted();
    // The spare's own bash runs (outer bwrap, bwrap's init, bash): its mounts are made.
    await until(
      "the spare's sandbox is set up",
      async () => await processesMatching("exit 112") >= 3,
    );
    await Deno.rename(join(dir.path, ".git"), join(dir.path, "old-git"));
    await Deno.mkdir(join(dir.path, ".git"));
    await Deno.writeTextFile(join(dir.path, ".git/marker"), "new\n");
    const after = await run({ ...options, command: "cat .git/marker; touch .git/x" });
    assert.match(after.output, /^new\n.*Read-only file system/s);
    await assert.rejects(Deno.stat(join(dir.path, ".git/x")), Deno.errors.NotFound);

    // Control: without the sandbox the same command writes both places, so the refusals above
    // are the sandbox's doing.
    await run({ cwd: dir.path, command: `touch ${outside}; touch .git/hook` });
    await Deno.stat(outside);
    await Deno.stat(join(dir.path, ".git/hook"));
  },
});

Deno.test({
  name:
    "a sandbox holding a stand-in gets no spare, and leaves nothing in the folder between commands",
  ignore: noBwrap,
  async fn() {
    await using dir = await tempDir();
    const config = Config.defaults().with({ "sandbox.mode": "bwrap" });
    const options = { cwd: dir.path, config, sandbox: planSandbox(config, dir.path) };
    await using _spares = keepSpareShells();
    const seen = await run({ ...options, command: "ls -A; git init -q .; echo $?" });
    // Inside: the stand-ins, empty and read-only; after: nothing, and no spare holding them.
    assert.match(seen.output, /^\.git\n\.replio\n.*Read-only file system\n128$/s);
    assert.deepEqual([...Deno.readDirSync(dir.path)], []);
    await run({ ...options, command: "true" });
    assert.equal(waitingSparePid(), undefined);
    assert.deepEqual([...Deno.readDirSync(dir.path)], []);

    // Control: once the folders exist, the same commands get their spare.
    await Deno.mkdir(join(dir.path, ".git"));
    await Deno.mkdir(join(dir.path, ".replio"));
    await run({ ...options, command: "true" });
    await spareStarted();
  },
});
