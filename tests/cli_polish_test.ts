/**
 * Issue #25, the command line and the README's steps: a mistyped command names itself and the
 * nearest one, `replio help` names an unknown word, `replio "PROMPT"` opens the REPL with that
 * prompt, and the README's first-run steps, its edit setting and its `jq .status` example do what
 * the README says, run as written (the lines are read out of README.md, not copied here).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { childEnv, MAIN, runReplio } from "./support/replio_process.ts";
import { lastUserContent, setup, shellQuote, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));
const HAS_JQ = (await new Deno.Command("bash", { args: ["-c", "command -v jq"], stdout: "null" })
  .output()).success;
if (!HAS_JQ) {
  // deno-lint-ignore no-console
  console.error("cli_polish_test: the jq example's test is skipped: install jq to run it");
}

Deno.test("replio with a mistyped command names it and the nearest command (exit 2)", async () => {
  await using wt = await tempWorktree();
  const cases: [string[], string][] = [
    [["sesions", "list"], 'replio: unknown command "sesions" (did you mean sessions?)\n'],
    [["sessions", "lst"], 'replio: unknown command "sessions lst" (did you mean sessions list?)\n'],
    [["policy", "tset"], 'replio: unknown command "policy tset" (did you mean policy test?)\n'],
    [["--model", "m", "confg"], 'replio: unknown command "confg" (did you mean config?)\n'],
  ];
  for (const [args, stderr] of cases) {
    const run = await runReplio(args, { cwd: wt.path });
    assert.deepEqual(run, { code: 2, stdout: "", stderr }, args.join(" "));
  }
});

Deno.test("replio help names an unknown command, and shows a nested command's help", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await runReplio(["help", "nosuch"], { cwd: wt.path }), {
    code: 2,
    stdout: "",
    stderr: 'replio: unknown command "nosuch": run replio --help for the commands\n',
  });
  assert.deepEqual(await runReplio(["help", "sessions", "lst"], { cwd: wt.path }), {
    code: 2,
    stdout: "",
    stderr: 'replio: unknown command "sessions lst" (did you mean sessions list?)\n',
  });
  const nested = await runReplio(["help", "sessions", "list"], { cwd: wt.path });
  const direct = await runReplio(["sessions", "list", "--help"], { cwd: wt.path });
  assert.equal(nested.code, 0, nested.stderr);
  assert.match(nested.stdout, /^Usage: replio sessions list \[options\]/);
  assert.deepEqual(nested, direct);
});

Deno.test("replio --help says how a first prompt is told from a mistyped command", async () => {
  await using wt = await tempWorktree();
  const run = await runReplio(["--help"], { cwd: wt.path });
  assert.match(run.stdout, /^Usage: replio \[options\] \[command\] \[prompt\.\.\.\]/);
  assert.ok(run.stdout.includes('replio "explain src/main.ts"             open the REPL and send'));
  assert.ok(run.stdout.includes("A first word near a command name is taken for a typo"));
});

/** Runs `replio ...args` as a REPL on piped input (no terminal) against `mock`. */
async function replWithPrompt(mock: MockModel, cwd: string, ...args: string[]) {
  return await runReplio(["--base-url", mock.baseUrl, "--model", "mock-model", ...args], {
    cwd,
    stdin: "",
  });
}

Deno.test("replio PROMPT opens the REPL and sends the prompt first", async () => {
  await using wt = await tempWorktree({ "a.ts": "export const a = 1;\n" });
  await using mock = startMockModel([
    { text: "a.ts exports one constant." },
    { text: "Unquoted words are one prompt." },
    { text: "A quoted phrase is a prompt." },
    { text: "After -- any word is a prompt." },
  ]);
  const quoted = await replWithPrompt(mock, wt.path, "explain a.ts");
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.match(quoted.stdout, /\n> explain a\.ts\n/);
  assert.match(quoted.stdout, /a\.ts exports one constant\./);
  assert.equal(lastUserContent(mock, 0), "explain a.ts");
  // Words near no command are a prompt too, joined as `replio run` joins them.
  const unquoted = await replWithPrompt(mock, wt.path, "explain", "a.ts");
  assert.equal(unquoted.code, 0, unquoted.stderr);
  assert.equal(lastUserContent(mock, 1), "explain a.ts");
  // The typo guard's controls: the same mistyped word in a phrase, or after --, is a prompt.
  const phrase = await replWithPrompt(mock, wt.path, "sesions list");
  assert.equal(phrase.code, 0, phrase.stderr);
  assert.equal(lastUserContent(mock, 2), "sesions list");
  const literal = await replWithPrompt(mock, wt.path, "--", "sesions");
  assert.equal(literal.code, 0, literal.stderr);
  assert.equal(lastUserContent(mock, 3), "sesions");
  assert.equal(mock.requests.length, 4);
  assert.deepEqual(mock.violations, []);
});

Deno.test("replio PROMPT in a terminal shows the prompt as typed, the answer, then the prompt", async () => {
  await using env = await setup([{ text: "It greets the reader." }]);
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "what does README.md say?"]);
  const screen = await repl.waitFor("It greets the reader.");
  assert.match(screen, /\n> what does README\.md say\?\n/);
  await repl.waitForPrompt();
  assert.equal(lastUserContent(env.mock, 0), "what does README.md say?");
  // The REPL goes on: the next line typed is the next message.
  await repl.enter("/exit");
  await repl.waitForExit();
});

/** The lines of the README's fenced `sh` block holding `marker`, comments dropped. */
function readmeBlock(marker: string): string[] {
  const block = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!)
    .find((text) => text.includes(marker));
  assert.ok(block, `README has an sh block with ${marker}`);
  return block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter(Boolean);
}

/** A folder with `replio` (this checkout) on PATH, and that PATH. */
async function replioOnPath(): Promise<{ bin: string; path: string } & AsyncDisposable> {
  const bin = await Deno.makeTempDir({ prefix: "replio_bin_" });
  await Deno.writeTextFile(
    join(bin, "replio"),
    `#!/bin/sh\nexec ${shellQuote(Deno.execPath())} run --no-prompt -A ${shellQuote(MAIN)} "$@"\n`,
  );
  await Deno.chmod(join(bin, "replio"), 0o755);
  return {
    bin,
    path: `${bin}:${Deno.env.get("PATH") ?? ""}`,
    [Symbol.asyncDispose]: () => Deno.remove(bin, { recursive: true }),
  };
}

/** Runs `script` in bash in `cwd`, replio on PATH, with replio's test environment. */
async function bash(script: string, cwd: string, env: Record<string, string> = {}) {
  await using place = await replioOnPath();
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    clearEnv: true,
    env: childEnv(cwd, { PATH: place.path, ...env }),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("README first run: the vLLM steps with --global reach the server from a new folder", async () => {
  const steps = readmeBlock("replio config set base_url");
  const README_URL = "http://127.0.0.1:8000/v1";
  assert.ok(steps.every((line) => line.startsWith("replio ")), steps.join("\n"));
  assert.ok(steps.some((line) => line.includes(README_URL)));
  await using server = startMockModel([{ text: "Here are the files." }]);
  // What a run goes to when the folder's own setting is ignored: OPENAI_BASE_URL here.
  await using fallback = startMockModel([{ text: "Wrong server." }]);
  const script = steps.join("\n").replaceAll(README_URL, server.baseUrl);

  await using wt = await tempWorktree();
  const run = await bash(script, wt.path, { OPENAI_BASE_URL: fallback.baseUrl });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.split("\n").filter(Boolean).at(-1), "Here are the files.");
  assert.equal(lastUserContent(server, 0), "list the files here");
  assert.equal(server.requests[0]!.model, "Qwen/Qwen3-Coder-30B-A3B-Instruct");
  assert.equal(fallback.requests.length, 0);

  // Control, the trap the README warns of: without --global the setting lands in the new
  // folder's .replio/config.yaml, which an untrusted folder ignores, so the run goes elsewhere.
  await using other = await tempWorktree();
  const trap = await bash(script.replaceAll(" --global", ""), other.path, {
    OPENAI_BASE_URL: fallback.baseUrl,
  });
  assert.match(trap.stderr, /this folder is not trusted, so that file is not loaded/);
  assert.equal(lastUserContent(fallback, 0), "list the files here");
  assert.equal(server.requests.length, 1);
});

Deno.test("README: edits in the worktree run unasked; tool_permission.edit ask makes them ask", async () => {
  const [setting] = readmeBlock("tool_permission.edit ask");
  assert.equal(setting, "replio config set tool_permission.edit ask --global");
  const write = {
    toolCalls: [{ name: "file_write", arguments: { path: "made.txt", content: "x\n" } }],
  };
  await using mock = startMockModel([write, { text: "Wrote it." }, write, {
    text: "Not written.",
  }]);
  await using wt = await tempWorktree();
  const env = { OPENAI_BASE_URL: mock.baseUrl };
  const turn = `replio run --model m "write made.txt"`;

  const unasked = await bash(turn, wt.path, env);
  assert.equal(unasked.code, 0, unasked.stderr);
  assert.equal(await wt.read("made.txt"), "x\n");
  await Deno.remove(join(wt.path, "made.txt"));

  const asked = await bash(`${setting}\n${turn}`, wt.path, env);
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(asked.stderr, /Not run: it needs approval \(tool_permission\.edit\)/);
  await assert.rejects(Deno.stat(join(wt.path, "made.txt")), Deno.errors.NotFound);
  assert.deepEqual(mock.violations, []);
});

Deno.test({
  name: "README: replio run --output json … | jq .status prints what the README shows",
  ignore: !HAS_JQ,
  fn: async () => {
    const lines = README.split("\n");
    const at = lines.findIndex((line) => line.endsWith("| jq .status"));
    assert.ok(at >= 0, "README has the jq .status example");
    const shown = lines[at + 1]!.replace(/^# /, "");
    assert.equal(shown, '"ok"');
    await using mock = startMockModel([{ text: "No TODOs." }]);
    // The model is the reader's own setting (global config), so the line runs as printed.
    await using wt = await tempWorktree({ ".xdg/replio/config.yaml": "model: m\n" });
    const run = await bash(lines[at]!, wt.path, { OPENAI_BASE_URL: mock.baseUrl });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${shown}\n`);
    assert.equal(lastUserContent(mock, 0), "list the TODOs");
  },
});
