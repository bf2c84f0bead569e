import assert from "node:assert/strict";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  type TempWorktree,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { withGrowingTimeout } from "../../tests/support/growing_timeout.ts";
import { processesMatching } from "../../tests/support/process_state.ts";

/** The absolute path bash finds for `program`, or "" when it is not installed. */
async function which(program: string): Promise<string> {
  const out = await new Deno.Command("bash", { args: ["-c", `command -v ${program}`] }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/** The status block the confirm prompt would show. */
async function preview(
  wt: TempWorktree,
  tool: string,
  config: Record<string, string> = {},
): Promise<string> {
  const sink = new RecordingSink();
  await invokeInWorktree(wt, tool, {}, { sink, headless: "no", config });
  const call = sink.events.find((e) => e.type === "tool_call");
  return call?.type === "tool_call" ? call.activity.status ?? "" : "";
}

/** The result's head: command, exit status and summary; the output below them varies. */
function head(result: string): string {
  return result.split("\n\n")[0]!;
}

const DENO_TESTS = {
  "deno.json": "{}\n",
  "a_test.ts": 'Deno.test("adds", () => {\n  if (1 + 1 !== 2) throw new Error("math");\n});\n',
};

Deno.test("code_test reports failing tests with the failure in the tail", async () => {
  await using wt = await tempWorktree({
    ...DENO_TESTS,
    "b_test.ts": 'Deno.test("breaks", () => {\n  throw new Error("expected 3, got 4");\n});\n',
  });
  const out = await runTool(wt, "code_test", {});
  assert.equal(head(out), "$ deno test -A\nexit 1\nsummary: 1 passed, 1 failed (deno)");
  assert.match(out, /expected 3, got 4/);
});

Deno.test("code_test appends args to run one passing file", async () => {
  await using wt = await tempWorktree({
    ...DENO_TESTS,
    "b_test.ts": 'Deno.test("breaks", () => {\n  throw new Error("no");\n});\n',
  });
  const out = await runTool(wt, "code_test", { args: ["a_test.ts"] });
  assert.equal(head(out), "$ deno test -A a_test.ts\nexit 0\nsummary: 1 passed, 0 failed (deno)");
  assert.match(out, /^ok \| 1 passed \| 0 failed/m);
});

Deno.test("code_test runs a package.json test script through npm", async () => {
  await using wt = await tempWorktree({
    "package.json": JSON.stringify({ name: "p", scripts: { test: "node --test" } }),
    "math.test.mjs": 'import test from "node:test";\ntest("ok", () => {});\n' +
      'test("bad", () => { throw new Error("boom"); });\n',
  });
  const out = await runTool(wt, "code_test", { args: ["math.test.mjs"] });
  assert.equal(
    head(out),
    "$ npm run test -- math.test.mjs\nexit 1\nsummary: 1 passed, 1 failed (node --test)",
  );
});

Deno.test("code_test skips npm's placeholder test script", async () => {
  await using wt = await tempWorktree({
    "package.json": JSON.stringify({
      scripts: { test: 'echo "Error: no test specified" && exit 1' },
    }),
  });
  assert.equal(
    await runTool(wt, "code_test", {}),
    `Error: Cannot run the tests: dev.test_cmd is not set and "${wt.path}" has none of ` +
      "deno.json, package.json, pyproject.toml, setup.py, Cargo.toml or go.mod to detect it " +
      'from: set dev.test_cmd, e.g. replio config set dev.test_cmd "make test"',
  );
});

Deno.test("code_test runs unittest with the python on PATH", async () => {
  await using wt = await tempWorktree({
    "pyproject.toml": '[project]\nname = "p"\n',
    "test_math.py": "import unittest\n\nclass T(unittest.TestCase):\n" +
      "    def test_ok(self):\n        self.assertEqual(2, 1 + 1)\n\n" +
      "    def test_bad(self):\n        self.assertEqual(3, 1 + 1)\n",
  });
  const python = await which("python3") || await which("python");
  const out = await runTool(wt, "code_test", {});
  assert.equal(
    head(out),
    `$ ${python} -m unittest discover\nexit 1\nsummary: 1 passed, 1 failed (unittest)`,
  );
  assert.match(out, /AssertionError: 3 != 2/);
});

Deno.test("code_test prefers the configured dev.test_cmd", async () => {
  await using wt = await tempWorktree(DENO_TESTS);
  const out = await runTool(wt, "code_test", { args: ["it's"] }, {
    config: { "dev.test_cmd": "echo ran" },
  });
  assert.equal(out, "$ echo ran 'it'\\''s'\nexit 0\n\nran it's");
  assert.equal(
    await runTool(wt, "code_test", {}, { config: { "dev.test_cmd": "echo no >&2; exit 3" } }),
    "$ echo no >&2; exit 3\nexit 3\n\nno",
  );
});

Deno.test("code_test stops a run at the timeout", async () => {
  await using wt = await tempWorktree();
  const command = `echo started; sleep 300.${Math.floor(Math.random() * 1e9)}`;
  const stopped = (seconds: number) =>
    `$ ${command}\ntimed out after ${seconds}s: it was stopped; pass a larger timeout ` +
    "(seconds) or narrow the run with args";
  // The timeout counts from the start, so a busy machine may not reach the echo within it: that
  // run printed nothing, and the test runs again with a longer timeout.
  const { result: out, seconds } = await withGrowingTimeout(
    "the test command to print before its timeout",
    (timeout) => runTool(wt, "code_test", { timeout }, { config: { "dev.test_cmd": command } }),
    (out, seconds) => out === `${stopped(seconds)}\n\n(no output)`,
  );
  assert.equal(out, `${stopped(seconds)}\n\nstarted`);
  assert.equal(await processesMatching(command.slice("echo started; ".length)), 0);
});

Deno.test("code_test previews the command it will run", async () => {
  await using deno = await tempWorktree(DENO_TESTS);
  assert.equal(await preview(deno, "code_test"), "deno test -A (detected from deno.json)");
  await using configured = await tempWorktree();
  assert.equal(
    await preview(configured, "code_test", { "dev.test_cmd": "make check" }),
    "make check (from dev.test_cmd)",
  );
  assert.equal(
    await runTool(configured, "code_test", {}, { headless: "no" }),
    "Error: code_test needs confirmation (tool_permission.bash) and this headless run cannot " +
      "ask: it was denied; continue without it (the operator can rerun with --yes)",
  );
});

Deno.test({
  name: "code_test detects cargo projects",
  ignore: !(await which("cargo")),
  async fn() {
    await using wt = await tempWorktree({ "Cargo.toml": '[package]\nname = "x"\n' });
    assert.equal(await preview(wt, "code_test"), "cargo test (detected from Cargo.toml)");
    assert.equal(await preview(wt, "code_lint"), "cargo clippy (detected from Cargo.toml)");
    assert.equal(await preview(wt, "code_format"), "cargo fmt (detected from Cargo.toml)");
  },
});

Deno.test({
  name: "code_test says when the detected runner is not installed",
  ignore: Boolean(await which("go")),
  async fn() {
    await using wt = await tempWorktree({ "go.mod": "module example.com/x\n" });
    assert.equal(
      await runTool(wt, "code_test", {}),
      'Error: Cannot run the tests: "go" (detected from go.mod) is not on PATH: install it, ' +
        "or set dev.test_cmd to the command to run",
    );
  },
});
