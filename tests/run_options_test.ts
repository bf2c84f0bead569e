/**
 * `replio run`'s own argument reader (src/cli/run_options.ts, which spares the run path
 * commander) reads every command line it accepts exactly as commander does, and leaves to
 * commander what it does not read plainly.
 */
import assert from "node:assert/strict";
import { buildProgram } from "../src/cli/program.ts";
import { parseRunArgv } from "../src/cli/run_options.ts";

/** What commander's `run` action receives for `run ...argv`, or the error it throws. */
async function viaCommander(argv: string[]) {
  const program = buildProgram(() => {});
  const run = program.commands.find((command) => command.name() === "run")!;
  let got: { prompt: string[]; options: Record<string, unknown> } | undefined;
  run.action((prompt: string[], options: Record<string, unknown>) => {
    got = { prompt, options: { ...options } };
  });
  // commander prints its own errors; these tests compare, they do not show them.
  run.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    await program.parseAsync(["run", ...argv], { from: "user" });
  } catch (error) {
    return { error: (error as Error).message };
  }
  return got!;
}

/** Lines the fast reader must take itself: every option of the table, each spelling. */
const READ_DIRECTLY = [
  [],
  ["explain", "src/main.ts"],
  ["--yes", "fix", "the", "tests"],
  ["fix", "--yes", "the", "tests"],
  ["--no", "hi"],
  ["--yes", "--no"],
  ["--output", "json", "hi"],
  ["--output=stream-json", "hi"],
  ["--model", "gpt-x", "--base-url", "http://127.0.0.1:1/v1", "hi"],
  ["--model=m", "--base-url=http://h/v1?a=b", "hi"],
  ["--session", "20261202-abc", "--continue"],
  ["-c", "go", "on"],
  ["--mode", "plan", "look"],
  ["--permission-mode", "accept-edits", "edit"],
  ["--path", "/tmp", "--trust", "hi"],
  ["--max-rounds", "3", "hi"],
  ["--max-rounds=12"],
  ["--park", "deploy"],
  ["--resume", "20261202-abc"],
  ["--model", "a", "--model", "b"],
  ["--", "--yes", "is", "prompt"],
  ["-", "x"],
  ["say", "a=b", "--yes"],
];

/** Lines left to commander: help, unknown options, bad or missing values. */
const LEFT_TO_COMMANDER = [
  ["--help"],
  ["-h"],
  ["--nope", "hi"],
  ["-x"],
  ["-cy"],
  ["--output", "yaml"],
  ["--output"],
  ["--max-rounds", "0"],
  ["--max-rounds", "two"],
  ["--model"],
  ["--model", "-x", "hi"],
  ["--yes=true"],
];

Deno.test("run_options: the lines it reads come out as commander reads them", async () => {
  for (const argv of READ_DIRECTLY) {
    const fast = parseRunArgv(argv);
    assert.ok(fast, `read directly: ${JSON.stringify(argv)}`);
    assert.deepEqual(fast, await viaCommander(argv), JSON.stringify(argv));
  }
});

Deno.test("run_options: help, unknown options and bad values go to commander", async () => {
  for (const argv of LEFT_TO_COMMANDER) {
    assert.equal(parseRunArgv(argv), null, JSON.stringify(argv));
  }
  // Control: commander itself refuses the mistakes among them.
  for (const argv of [["--nope"], ["--output", "yaml"], ["--max-rounds", "0"], ["--model"]]) {
    assert.ok("error" in await viaCommander(argv), JSON.stringify(argv));
  }
});

Deno.test("run_options: every option commander's run has is in the table", () => {
  const program = buildProgram(() => {});
  const run = program.commands.find((command) => command.name() === "run")!;
  const flags = run.options.map((option) => option.long).sort();
  // A value that fits every option that takes one (`--output json` is a choice, `3` a count).
  const read = flags.filter((flag) =>
    parseRunArgv([flag!, "3"]) !== null || parseRunArgv([flag!, "json"]) !== null
  );
  assert.deepEqual(read, flags);
});
