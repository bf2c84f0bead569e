/**
 * A read-only worktree degrades instead of crashing: sessions and history turn off with one
 * notice and the turn still works, `config set` and the file tools fail in one clear line, and
 * nothing prints a stack. The worktree is made read-only for real with bubblewrap (a read-only
 * bind of /, where writes fail with EROFS); each case has a control run without it.
 */
import assert from "node:assert/strict";
import { startMockModel } from "./support/mock_model.ts";
import { MAIN } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const HAS_BWRAP = await new Deno.Command("bwrap", {
  args: ["--ro-bind", "/", "/", "true"],
  stdout: "null",
  stderr: "null",
}).output().then((out) => out.success, () => false);

const STACK_FRAME = /^\s+at .*:\d+:\d+\)?$/m;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `replio ...args` under -A, inside a read-only view of the whole file system when `readOnly`. */
async function replio(
  cwd: string,
  readOnly: boolean,
  args: string[],
  stdin?: string,
): Promise<Run> {
  const deno = [Deno.execPath(), "run", "--no-prompt", "-A", MAIN, ...args];
  const bwrap = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--die-with-parent"];
  const [command, ...rest] = readOnly ? ["bwrap", ...bwrap, ...deno] : deno;
  const child = new Deno.Command(command!, {
    args: rest,
    cwd,
    clearEnv: true,
    env: {
      HOME: Deno.env.get("HOME") ?? "",
      PATH: Deno.env.get("PATH") ?? "",
      XDG_CONFIG_HOME: `${cwd}/.xdg`,
      NO_COLOR: "1",
      RUST_BACKTRACE: "0",
    },
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
  }
  const out = await child.output();
  const run = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  assert.doesNotMatch(run.stdout + run.stderr, STACK_FRAME, JSON.stringify(run));
  return run;
}

Deno.test({
  name: "read-only worktree: a turn still works and says once that sessions are off",
  ignore: !HAS_BWRAP,
  async fn() {
    await using wt = await tempWorktree({ ".replio/config.yaml": "max_rounds: 5\n" });
    await using model = startMockModel([{ text: "answer one" }, { text: "answer two" }]);
    // Trusted: its config is the user's, and the one notice to see is about sessions.
    const args = ["run", "--trust", "--base-url", model.baseUrl, "--model", "m", "hi"];
    const ro = await replio(wt.path, true, args);
    assert.equal(ro.code, 0, ro.stderr);
    assert.equal(ro.stdout, "answer one\n");
    const lines = ro.stderr.trimEnd().split("\n");
    assert.equal(lines.length, 1, ro.stderr);
    assert.match(
      lines[0]!,
      /^replio: sessions are off, this one is kept in memory only: cannot write .*sessions: .*read-only/,
    );
    // Control: writable, the session is saved and nothing is said.
    const rw = await replio(wt.path, false, args);
    assert.deepEqual([rw.code, rw.stdout, rw.stderr], [0, "answer two\n", ""]);
    assert.equal([...Deno.readDirSync(`${wt.path}/.replio/sessions`)].length, 2); // + .gitignore
  },
});

Deno.test({
  name: "read-only worktree: the REPL turns history and sessions off with one notice each",
  ignore: !HAS_BWRAP,
  async fn() {
    await using wt = await tempWorktree();
    await using model = startMockModel([{ text: "first" }, { text: "second" }]);
    const repl = await replio(
      wt.path,
      true,
      ["--base-url", model.baseUrl, "--model", "m"],
      "one\ntwo\n/exit\n",
    );
    assert.equal(repl.code, 0, repl.stderr);
    const out = repl.stdout + repl.stderr;
    assert.match(out, /first/);
    assert.match(out, /second/);
    assert.equal(out.match(/history is off/g)?.length, 1, out);
    assert.equal(out.match(/sessions are off/g)?.length, 1, out);
  },
});

Deno.test({
  name: "read-only worktree: config set and file tools fail in one clear line",
  ignore: !HAS_BWRAP,
  async fn() {
    await using wt = await tempWorktree({ "b.txt": "before\n" });
    const set = await replio(wt.path, true, ["config", "set", "model", "x"]);
    assert.deepEqual([set.code, set.stdout], [1, ""]);
    // One line naming the file and the read-only file system (here .replio/ cannot be made).
    assert.equal(set.stderr.split("\n").length, 2, set.stderr);
    assert.match(
      set.stderr,
      new RegExp(
        `^replio: Cannot write "${wt.path}/\\.replio/config\\.yaml": Read-only file system.*` +
          `the file system is read-only here: run replio where it may write\n$`,
      ),
    );
    const edit = await replio(wt.path, true, [
      "tool",
      "file_edit",
      '{"path":"b.txt","old":"before","new":"after"}',
      "--yes",
    ]);
    assert.deepEqual(edit, {
      code: 1,
      stdout: `Error: Cannot write "${wt.path}/b.txt": the file system is read-only here: ` +
        `nothing can be written in "${wt.path}"\n`,
      stderr: "",
    });
    // Control: writable, both succeed.
    assert.equal((await replio(wt.path, false, ["config", "set", "model", "x"])).code, 0);
    const edited = await replio(wt.path, false, [
      "tool",
      "file_edit",
      '{"path":"b.txt","old":"before","new":"after"}',
      "--yes",
    ]);
    assert.equal(edited.code, 0, edited.stdout);
    assert.equal(await wt.read("b.txt"), "after\n");
  },
});

Deno.test("a missing grant outside any tool is one line and exit 1, never a stack", async () => {
  await using wt = await tempWorktree();
  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--allow-read=/nonexistent", MAIN, "sessions", "list"],
    cwd: wt.path,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(child.stderr);
  assert.equal(child.code, 1, stderr);
  assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
  assert.match(stderr, /^replio: Requires read access to ".*": restart replio with --allow-read=/);
});
