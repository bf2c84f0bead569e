/**
 * What a person reads when a call does not run (issue #25), for each policy outcome through each
 * front-end: the REPL (tmux), `replio tool` and `replio run --output text`. The person is told
 * what happened and what they can do; the model keeps its own model-directed text (the tool
 * result, checked in the mock model's next request or in `replio tool --json`). Outcomes a
 * front-end cannot meet are named where the table skips them: a REPL asks a person instead of
 * refusing headless, and `replio tool` has no person who could decline.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitUntil } from "./support/deadline.ts";
import { exists } from "./support/exists.ts";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { replioCommand, runReplio } from "./support/replio_process.ts";
import { setup, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

/** Deno flags without `--allow-run`: run_command's grant is missing. */
const NO_RUN = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-sys"];
const FLAGS = "--allow-run=setsid,bash";

/** The model's texts, as src/tools/invoke.ts writes them (tested there too). */
const MODEL = {
  toolsDeny: (tool: string) =>
    `Error: ${tool} is denied by policy (tools.deny): do not retry it; use another tool or approach`,
  mode: (tool: string) =>
    `Error: ${tool} is denied by policy (mode plan): do not retry it; use another tool or approach`,
  headless: (tool: string, rule: string) =>
    `Error: ${tool} needs confirmation (${rule}) and this headless run cannot ask: it was ` +
    "denied; continue without it (the operator can rerun with --yes)",
  protectedPath: (tool: string, path: string) =>
    `Error: ${tool} would write a protected path (${path}), which only a person can approve, ` +
    "and this headless run cannot ask: it was denied even with --yes; continue without it " +
    "(the operator can make the change in the REPL)",
  noGrant: (tool: string) =>
    `Error: ${tool} is unavailable: replio was started without ${FLAGS}: do not retry it; use ` +
    `another tool (the user can restart replio with ${FLAGS})`,
  declined: (tool: string) =>
    `Error: the user declined to run ${tool}: do not retry it; ask what they want instead or ` +
    "take another approach",
  cancelled: "Error: cancelled by the user",
};

/** A repository's config, which a protected-path write must leave as it is. */
const GIT = "[core]\n\tbare = false\n";

/** The words the model is told that a person should never be shown. */
const MODEL_ONLY = /do not retry|continue without it|the operator|use another tool/;

/** The tool message answering `callId` in the mock's last request. */
function toolMessage(mock: MockModel, callId = "call_mock_1"): string {
  const message = mock.requests.at(-1)!.messages.find((m) =>
    m.role === "tool" && m.tool_call_id === callId
  );
  return String(message?.content);
}

/** A screen's lines with our own wrapping undone (continuations are indented). */
function unwrapped(screen: string): string {
  return screen.replace(/\n {3,}/g, " ");
}

Deno.test("person wording in the REPL: tools.deny, a mode, a person's no, a cancel", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "grep", arguments: { pattern: "Hello" } }] },
    { text: "Grep was blocked." },
    { toolCalls: [{ name: "run_command", arguments: { command: "touch declined_marker" } }] },
    { text: "You said no." },
    { toolCalls: [{ name: "run_command", arguments: { command: "touch cancelled_marker" } }] },
    { toolCalls: [{ name: "run_command", arguments: { command: "touch plan_marker" } }] },
    { text: "Plan mode blocked it." },
  ]);
  await env.wt.write(".replio/config.yaml", "tools:\n  deny: [grep]\n");
  await using repl = await TmuxRepl.start(env.wt.path, env.args, { noColor: true });

  await repl.enter("search");
  let screen = unwrapped(await repl.waitFor("Grep was blocked."));
  assert.match(
    screen,
    /\n {2}! Not run: tools\.deny blocks grep: take it out of tools\.deny \(\/config tools\.deny shows where it is set\) to allow it\n/,
  );
  assert.equal(toolMessage(env.mock), MODEL.toolsDeny("grep"));

  await repl.enter("make a file");
  await repl.waitFor("[y/N]");
  await repl.keys("n");
  screen = await repl.waitFor("You said no.");
  assert.match(screen, /\n {2}✗ Not run: you declined\n/);
  assert.equal(toolMessage(env.mock, "call_mock_2"), MODEL.declined("run_command"));

  await repl.enter("make another");
  await repl.waitFor(/touch cancelled_marker[^\n]*\[y\/N\][^\n]*\s*$/);
  await repl.keys("C-c");
  screen = await repl.waitFor("(cancelled)");
  // The cancel says it all: no refusal line written for the model.
  assert.doesNotMatch(screen.slice(screen.lastIndexOf("make another")), /Not run|Error/);
  await repl.waitForPrompt();

  await repl.enter("/mode plan");
  // Its own line, before the next is typed: two lines typed at once would read as a paste.
  await repl.waitFor(/Mode plan: [^\n]*\nplan >\s*$/);
  await repl.enter("make a third");
  screen = unwrapped(await repl.waitFor("Plan mode blocked it."));
  assert.match(
    screen,
    /\n {2}! Not run: mode plan does not allow run_command: switch modes with \/mode or Shift\+Tab to allow it\n/,
  );
  assert.equal(toolMessage(env.mock, "call_mock_4"), MODEL.mode("run_command"));
  // The cancelled call's result reached the model with the next message.
  assert.equal(toolMessage(env.mock, "call_mock_3"), MODEL.cancelled);
  assert.doesNotMatch(screen, MODEL_ONLY);
  for (const marker of ["declined_marker", "cancelled_marker", "plan_marker"]) {
    assert.equal(await exists(join(env.wt.path, marker)), false, marker);
  }
});

Deno.test("person wording in the REPL: a missing Deno grant names the flag to restart with", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch marker" } }] },
    { text: "No commands here." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args, {
    noColor: true,
    denoFlags: NO_RUN,
  });
  await repl.enter("make a file");
  const screen = unwrapped(await repl.waitFor("No commands here."));
  assert.match(
    screen,
    new RegExp(
      `\\n {2}! Not run: replio was started without ${FLAGS}: restart it with ${FLAGS} to use run_command\\n`,
    ),
  );
  assert.doesNotMatch(screen, MODEL_ONLY);
  assert.equal(toolMessage(env.mock), MODEL.noGrant("run_command"));
  assert.equal(await exists(join(env.wt.path, "marker")), false);
});

/** One `replio tool` case: its arguments and setup, and what the person and --json get. */
interface ToolCase {
  outcome: string;
  args: string[];
  denoFlags?: string[];
  files?: Record<string, string>;
  person: string;
  model: string;
}

const TOOL_CASES: ToolCase[] = [
  {
    outcome: "tools.deny",
    args: ["file_read", '{"path":"README.md"}'],
    files: { ".replio/config.yaml": "tools:\n  deny: [file_read]\n" },
    person: "replio tool: tools.deny blocks file_read: take it out of tools.deny " +
      "(replio config get tools.deny shows where it is set) to allow it",
    model: MODEL.toolsDeny("file_read"),
  },
  {
    outcome: "a mode",
    args: ["file_write", '{"path":"x.txt","content":"x"}', "--mode", "plan", "--yes"],
    person: "replio tool: mode plan does not allow file_write: rerun with --mode default " +
      "(or another mode that allows it)",
    model: MODEL.mode("file_write"),
  },
  {
    outcome: "a headless ask without --yes",
    args: ["file_read", '{"path":"/etc/hostname"}'],
    person: "replio tool: file_read needs your confirmation (outside the worktree): rerun " +
      "with --yes to allow it",
    model: MODEL.headless("file_read", "outside worktree"),
  },
  {
    outcome: "a protected path with --yes",
    args: ["file_write", '{"path":".git/config","content":"x"}', "--yes"],
    person: "replio tool: file_write would write .git/config, a protected path only a person " +
      "can approve (--yes does not cover it): make the change in the REPL, which asks you first",
    model: MODEL.protectedPath("file_write", ".git/config"),
  },
  {
    outcome: "a missing Deno grant",
    args: ["run_command", '{"command":"touch marker"}', "--yes"],
    denoFlags: NO_RUN,
    person: `replio tool: replio was started without ${FLAGS}: restart it with ${FLAGS} to use ` +
      "run_command",
    model: MODEL.noGrant("run_command"),
  },
  // Declined by a person: `replio tool` asks no one; a refusal there is one of the above.
];

for (const c of TOOL_CASES) {
  Deno.test(`person wording in replio tool: ${c.outcome}`, async () => {
    await using wt = await tempWorktree({
      "README.md": "# Demo\n",
      ".git/config": GIT,
      ...c.files,
    });
    const gitConfig = await Deno.readTextFile(join(wt.path, ".git", "config"));
    const options = { cwd: wt.path, ...(c.denoFlags ? { denoFlags: c.denoFlags } : {}) };
    const run = await runReplio(["tool", ...c.args], options);
    assert.equal(run.code, 3, run.stdout + run.stderr);
    assert.equal(run.stdout, "", "nothing written for a model reaches the person");
    assert.equal(
      run.stderr.split("\n").filter((l) => l.startsWith("replio tool:")).join("\n"),
      c.person,
    );
    assert.doesNotMatch(run.stderr, MODEL_ONLY);
    const json = await runReplio(["tool", ...c.args, "--json"], options);
    assert.equal(JSON.parse(json.stdout).output, c.model, "--json keeps the model's text");
    assert.equal(await exists(join(wt.path, "marker")), false);
    assert.equal(await exists(join(wt.path, "x.txt")), false);
    assert.equal(await Deno.readTextFile(join(wt.path, ".git", "config")), gitConfig);
  });
}

Deno.test("person wording in replio tool: a cancel (SIGINT) while the call runs", async () => {
  await using wt = await tempWorktree();
  const child = replioCommand(
    ["tool", "run_command", '{"command":"touch started; sleep 30; touch finished"}', "--yes"],
    { cwd: wt.path },
  ).spawn();
  const kill = () => child.kill("SIGKILL");
  try {
    await waitUntil(() => exists(join(wt.path, "started")), "the command to start");
  } catch (error) {
    kill();
    await child.output();
    throw error;
  }
  child.kill("SIGINT");
  const { code, stdout, stderr } = await child.output();
  assert.equal(code, 130);
  assert.equal(new TextDecoder().decode(stdout), "");
  assert.equal(
    new TextDecoder().decode(stderr),
    "replio tool: cancelled: run_command was stopped (Ctrl-C)\n",
  );
  assert.equal(await exists(join(wt.path, "finished")), false);
});

/** One `replio run` case: the model's call, the run's flags, and what the person and model get. */
interface RunCase {
  outcome: string;
  call: { name: string; arguments: Record<string, unknown> };
  flags: string[];
  denoFlags?: string[];
  files?: Record<string, string>;
  person: string;
  model: string;
}

const RUN_CASES: RunCase[] = [
  {
    outcome: "tools.deny",
    call: { name: "file_read", arguments: { path: "README.md" } },
    flags: ["--yes"],
    files: { ".replio/config.yaml": "tools:\n  deny: [file_read]\n" },
    person: "! Not run: tools.deny blocks file_read: take it out of tools.deny " +
      "(replio config get tools.deny shows where it is set) to allow it",
    model: MODEL.toolsDeny("file_read"),
  },
  {
    outcome: "a mode",
    call: { name: "run_command", arguments: { command: "touch marker" } },
    flags: ["--mode", "plan", "--yes"],
    person: "! Not run: mode plan does not allow run_command: rerun with --mode default " +
      "(or another mode that allows it)",
    model: MODEL.mode("run_command"),
  },
  {
    outcome: "a headless ask without --yes",
    call: { name: "run_command", arguments: { command: "touch marker" } },
    flags: [],
    person: "! Not run: it needs approval (tool_permission.bash) and a headless run cannot " +
      "ask: rerun with --yes to allow it",
    model: MODEL.headless("run_command", "tool_permission.bash"),
  },
  {
    outcome: "a protected path with --yes",
    call: { name: "file_write", arguments: { path: ".git/config", content: "x" } },
    flags: ["--yes"],
    person: "! Not run: file_write would write .git/config, a protected path only a person can " +
      "approve (--yes does not cover it): make the change in the REPL, which asks you first",
    model: MODEL.protectedPath("file_write", ".git/config"),
  },
  {
    outcome: "a missing Deno grant",
    call: { name: "run_command", arguments: { command: "touch marker" } },
    flags: ["--yes"],
    denoFlags: NO_RUN,
    person: `! Not run: replio was started without ${FLAGS}: restart it with ${FLAGS} to use ` +
      "run_command",
    model: MODEL.noGrant("run_command"),
  },
];

for (const c of RUN_CASES) {
  Deno.test(`person wording in replio run: ${c.outcome}`, async () => {
    await using wt = await tempWorktree({
      "README.md": "# Demo\n",
      ".git/config": GIT,
      ...c.files,
    });
    const gitConfig = await Deno.readTextFile(join(wt.path, ".git", "config"));
    await using mock = startMockModel([{ toolCalls: [c.call] }, { text: "Went on without it." }]);
    const run = await runReplio(
      ["run", "--base-url", mock.baseUrl, "--model", "m", ...c.flags, "do it"],
      { cwd: wt.path, ...(c.denoFlags ? { denoFlags: c.denoFlags } : {}) },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "Went on without it.\n");
    assert.ok(run.stderr.split("\n").includes(c.person), run.stderr);
    assert.doesNotMatch(run.stderr, MODEL_ONLY);
    assert.equal(toolMessage(mock), c.model);
    assert.equal(await exists(join(wt.path, "marker")), false);
    assert.equal(await Deno.readTextFile(join(wt.path, ".git", "config")), gitConfig);
  });
}

Deno.test("person wording in replio run: declined by a person with replio deny", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch marker" } }] },
    { text: "Left it." },
  ]);
  const model = ["--base-url", mock.baseUrl, "--model", "m"];
  const parked = await runReplio(["run", ...model, "--park", "go"], { cwd: wt.path });
  assert.equal(parked.code, 4, parked.stderr);
  const session = /replio run --resume (\S+)/.exec(parked.stderr)![1]!;
  const denied = await runReplio(
    ["deny", session, "--call", "call_mock_1", "--reason", "not on a Friday"],
    { cwd: wt.path },
  );
  assert.equal(denied.code, 0, denied.stderr);
  const resumed = await runReplio(["run", ...model, "--resume", session], { cwd: wt.path });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.ok(
    resumed.stderr.split("\n").includes('✗ Not run: declined with replio deny ("not on a Friday")'),
    resumed.stderr,
  );
  assert.doesNotMatch(resumed.stderr, MODEL_ONLY);
  assert.equal(
    toolMessage(mock),
    "Error: the user declined to run run_command (not on a Friday): do not retry it; take " +
      "another approach",
  );
  assert.equal(await exists(join(wt.path, "marker")), false);
});

Deno.test("person wording in replio run: a cancel (SIGINT) while a command runs", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    {
      toolCalls: [{
        name: "run_command",
        arguments: { command: "touch started; sleep 30; touch finished" },
      }],
    },
  ]);
  const child = replioCommand(
    ["run", "--base-url", mock.baseUrl, "--model", "m", "--yes", "go"],
    { cwd: wt.path },
  ).spawn();
  try {
    await waitUntil(() => exists(join(wt.path, "started")), "the command to start");
  } catch (error) {
    child.kill("SIGKILL");
    await child.output();
    throw error;
  }
  child.kill("SIGINT");
  const { code, stderr } = await child.output();
  const text = new TextDecoder().decode(stderr);
  assert.equal(code, 130, text);
  assert.ok(text.split("\n").includes("✗ Stopped: the run was cancelled"), text);
  assert.ok(text.split("\n").includes("(cancelled)"), text);
  assert.doesNotMatch(text, /cancelled by the user/);
  assert.equal(await exists(join(wt.path, "finished")), false);
});

Deno.test("replio trust --list says when no folder is trusted; the list itself stays empty", async () => {
  await using wt = await tempWorktree();
  const empty = await runReplio(["trust", "--list"], { cwd: wt.path });
  assert.equal(empty.code, 0, empty.stderr);
  assert.equal(empty.stdout, "");
  assert.match(
    empty.stderr,
    /^replio: no folders are trusted yet \(trusted_folders in [^)]+\): run replio trust in a folder to trust it\n$/,
  );
  // The control: with a folder trusted, the list names it and says nothing else.
  assert.equal((await runReplio(["trust"], { cwd: wt.path })).code, 0);
  const listed = await runReplio(["trust", "--list"], { cwd: wt.path });
  assert.deepEqual({ stdout: listed.stdout, stderr: listed.stderr }, {
    stdout: `${wt.path}\n`,
    stderr: "",
  });
});
