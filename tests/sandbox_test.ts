/**
 * Sandboxed runs tell the truth (docs/sandbox.md): under each set of Deno flags, in a worktree
 * with a project config, `replio tools` lists exactly what works; every listed tool either works
 * or fails for a reason of policy or of the world (never a missing Deno grant); every unlisted
 * tool is refused naming the exact flag; and no output holds a stack frame or Deno's own advice.
 * Each sandbox recipe runs against the mock model the same way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SANDBOX_RECIPES } from "../src/cli/sandbox_recipes.ts";
import { startMockModel } from "./support/mock_model.ts";
import { childEnv, runReplio } from "./support/replio_process.ts";
import { type TempWorktree, tempWorktree } from "./support/worktree.ts";

interface Listing {
  tools: { name: string }[];
  hidden: { name: string; reason: string }[];
}

interface Standing {
  name: string;
  status: "usable" | "worktree" | "unavailable" | "denied";
  detail: string;
}

/** One call per tool: arguments that succeed when the process may do the work. */
function callFor(name: string): Record<string, unknown> {
  const args: Record<string, Record<string, unknown>> = {
    file_read: { path: "a.txt" },
    list_dir: { path: "." },
    glob: { pattern: "*.txt" },
    grep: { pattern: "hello" },
    // No output is kept yet: it answers that o1 is unknown, a result, not a missing grant.
    tool_output: { id: "o1" },
    file_write: { path: "new.txt", content: "new\n" },
    file_edit: { path: "b.txt", old: "before", new: "after" },
    git: { subcommand: "log", args: ["--oneline"] },
    git_commit: { message: "sandbox test", all: true },
    run_command: { command: "echo from-bash" },
    code_test: {},
    code_lint: {},
    code_format: {},
    // A loopback address: the private-address guard (policy) refuses it before any connection.
    web_fetch: { url: "http://127.0.0.1:9/" },
    web_search: { query: "replio" },
    delegate: { agent_type: "general", task: "say hi" },
    ask: { question: "go on?" },
  };
  return args[name] ?? {};
}

/** Tools whose call must succeed whenever they are listed (the rest may fail for the world). */
const MUST_WORK = new Set([
  "file_read",
  "list_dir",
  "glob",
  "grep",
  "file_write",
  "file_edit",
  "git",
  "git_commit",
  "run_command",
]);

/** What a missing grant looks like when it leaks: Deno's words, or advice to add a flag. */
const GRANT_LEAK = /--allow-|Requires \w+ access|NotCapable|run again with/;
/** A JavaScript stack frame. */
const STACK_FRAME = /^\s+at .*(:\d+:\d+\)?|<anonymous>\)?)$/m;

/** A worktree with a project config and a committed file, as users have. */
async function projectWorktree(): Promise<TempWorktree> {
  const wt = await tempWorktree({
    "a.txt": "hello\n",
    "b.txt": "before\n",
    // A project config: parsing it once needed env access (yaml reads LOG_TOKENS).
    ".replio/config.yaml": "# project settings\nmax_rounds: 20\n",
  });
  for (
    const args of [
      ["init", "-q"],
      ["add", "a.txt", "b.txt"],
      ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"],
    ]
  ) {
    const out = await new Deno.Command("git", { args, cwd: wt.path, stderr: "piped" }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  }
  return wt;
}

function assertClean(label: string, text: string): void {
  assert.doesNotMatch(text, STACK_FRAME, `${label}: a stack frame\n${text}`);
  assert.doesNotMatch(text, /Stack backtrace|Uncaught/, `${label}\n${text}`);
}

async function replio(wt: string, flags: string[], ...args: string[]) {
  const run = await runReplio(args, {
    cwd: wt,
    denoFlags: flags,
    // git_commit needs an identity; HOME is not readable under most of these flags.
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
  assertClean(`replio ${args.join(" ")} under ${flags.join(" ")}`, run.stdout + run.stderr);
  return run;
}

/** Listing and `permissions` agree, and every hidden tool names the flags that would serve it. */
async function listing(wt: string, flags: string[], baseUrl?: string): Promise<Listing> {
  const endpoint = baseUrl === undefined ? [] : ["--base-url", baseUrl];
  const tools = await replio(wt, flags, "tools", "--json", ...endpoint);
  assert.equal(tools.code, 0, tools.stderr);
  const list = JSON.parse(tools.stdout) as Listing;
  const report = await replio(wt, flags, "permissions", "--json", ...endpoint);
  assert.equal(report.code, 0, report.stderr);
  const standings = (JSON.parse(report.stdout) as { tools: Standing[] }).tools;
  const unavailable = standings.filter((s) => s.status === "unavailable");
  assert.deepEqual(
    unavailable.map((s) => ({ name: s.name, reason: `deno: ${s.detail}` })),
    list.hidden.filter((h) => h.reason.startsWith("deno: ")),
  );
  for (const hidden of list.hidden) assert.match(hidden.reason, /^deno: needs --allow-\w+/);
  return list;
}

/** Checks one call's result against the listing. */
function judge(
  list: Listing,
  call: { name: string; output: string; isError: boolean },
  label: string,
): void {
  const where = `${label}: ${call.name} → ${call.output}`;
  const hidden = list.hidden.find((h) => h.name === call.name);
  if (hidden) {
    const flags = hidden.reason.slice("deno: needs ".length);
    assert.ok(call.isError, where);
    assert.ok(call.output.includes(`replio was started without ${flags}`), where);
    assert.doesNotMatch(call.output, /allow_private|config set|tool_permission/, where);
    return;
  }
  assert.ok(list.tools.some((t) => t.name === call.name), where);
  assert.doesNotMatch(call.output, GRANT_LEAK, where);
  if (MUST_WORK.has(call.name)) assert.ok(!call.isError, where);
}

interface Scenario {
  name: string;
  flags: (wt: string, mockHost: string) => string[];
  /** Whether the model is reachable: then one turn calls every tool. */
  model: boolean;
  /** Whether sessions can be saved. */
  writes: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: "--allow-read only", flags: () => ["--allow-read"], model: false, writes: false },
  {
    name: "--allow-read --allow-net=<mock>",
    flags: (_wt, host) => ["--allow-read", `--allow-net=${host}`],
    model: true,
    writes: false,
  },
  {
    name: "--allow-read --allow-write=<wt>",
    flags: (wt) => ["--allow-read", `--allow-write=${wt}`],
    model: false,
    writes: true,
  },
  { name: "-A", flags: () => ["-A"], model: true, writes: true },
  ...SANDBOX_RECIPES.map((recipe): Scenario => ({
    name: `recipe ${recipe.name}`,
    flags: (wt, host) =>
      recipe.flags({ worktree: wt, modelHost: host, env: ["OPENAI_API_KEY"] }).slice(1),
    model: true,
    writes: recipe.name !== "review",
  })),
];

/** Every bundled tool, as the unrestricted process lists them. */
async function allTools(wt: string): Promise<string[]> {
  const list = JSON.parse((await replio(wt, ["-A"], "tools", "--json")).stdout) as Listing;
  return list.tools.map((t) => t.name);
}

for (const scenario of SCENARIOS) {
  Deno.test(`sandbox ${scenario.name}: the listing matches what works, cleanly`, async () => {
    await using wt = await projectWorktree();
    // Turn 1 calls every tool; delegate's sub-agent (when allowed) takes turn 2; then done.
    const names = await allTools(wt.path);

    if (scenario.model) {
      const turns = [
        { toolCalls: names.map((name) => ({ name, arguments: callFor(name) })) },
        { text: "sub-agent done" },
        { text: "all done" },
      ];
      await using model = startMockModel(turns);
      const turnFlags = scenario.flags(wt.path, new URL(model.baseUrl).host);
      const list = await listing(wt.path, turnFlags, model.baseUrl);
      const run = await replio(
        wt.path,
        turnFlags,
        "run",
        "--output",
        "json",
        "--yes",
        "--base-url",
        model.baseUrl,
        "--model",
        "mock-model",
        "call every tool",
      );
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const result = JSON.parse(run.stdout) as {
        status: string;
        tool_calls: { name: string; output: string; is_error: boolean }[];
      };
      assert.equal(result.status, "ok");
      assert.deepEqual(result.tool_calls.map((c) => c.name), names);
      for (const call of result.tool_calls) {
        judge(
          list,
          { name: call.name, output: call.output, isError: call.is_error },
          scenario.name,
        );
      }
      const notices = run.stderr.split("\n").filter((line) => line.includes("sessions are off"));
      assert.equal(notices.length, scenario.writes ? 0 : 1, run.stderr);
      assert.deepEqual(model.violations, []);
    } else {
      await using mock = startMockModel([]);
      const host = new URL(mock.baseUrl).host;
      const flags = scenario.flags(wt.path, host);
      const list = await listing(wt.path, flags);
      for (const name of names) {
        const args = JSON.stringify(callFor(name));
        const call = await replio(wt.path, flags, "tool", name, args, "--yes");
        // A refusal is for the person, on stderr; a result is on stdout.
        const output = (call.code === 3 ? call.stderr : call.stdout).trim();
        assert.ok([0, 1, 3].includes(call.code), `${name}: ${call.code} ${output} ${call.stderr}`);
        judge(list, { name, output, isError: call.code !== 0 }, scenario.name);
      }
      // No model server may be reached: the turn fails in one clear line.
      const run = await replio(
        wt.path,
        flags,
        "run",
        "--base-url",
        mock.baseUrl,
        "--model",
        "mock-model",
        "hi",
      );
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, new RegExp(`--allow-net=${host.replaceAll(".", "\\.")}`));
    }
    assert.equal(await wt.read("a.txt"), "hello\n");
  });
}

Deno.test("sandbox: a read-only recipe keeps the turn working and says once that sessions are off", async () => {
  await using wt = await projectWorktree();
  await using model = startMockModel([{ text: "looked" }]);
  const recipe = SANDBOX_RECIPES.find((r) => r.name === "review")!;
  const flags = recipe.flags({
    worktree: wt.path,
    modelHost: new URL(model.baseUrl).host,
    env: ["OPENAI_API_KEY"],
  }).slice(1);
  const run = await replio(
    wt.path,
    flags,
    "run",
    "--base-url",
    model.baseUrl,
    "--model",
    "m",
    "--trust",
    "look",
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "looked\n");
  const replioDir = join(wt.path, ".replio");
  assert.equal(
    run.stderr,
    `replio: sessions are off, this one is kept in memory only: cannot write ` +
      `${replioDir}/sessions: Requires write access to "${replioDir}": restart replio with ` +
      `--allow-write=${replioDir} (or a parent directory)\n`,
  );
});

Deno.test("deno task sandbox:review runs the recipe in the folder it is started from", async () => {
  await using wt = await projectWorktree();
  await using model = startMockModel([{ text: "reviewed" }]);
  const config = new URL("../deno.json", import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "task",
      "--config",
      config,
      "sandbox:review",
      "run",
      "--base-url",
      model.baseUrl,
      "--model",
      "m",
      "look",
    ],
    cwd: wt.path,
    clearEnv: true,
    env: childEnv(wt.path),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(stdout, "reviewed\n");
  // The launcher prints the exact line it runs: the review recipe for this worktree and host.
  const host = new URL(model.baseUrl).host;
  assert.match(
    stderr,
    new RegExp(
      `^sandbox: deno run --no-prompt --allow-read=${wt.path} --allow-net=${
        host.replaceAll(".", "\\.")
      } --allow-env=OPENAI_API_KEY \\S+/main\\.ts run --base-url`,
      "m",
    ),
  );
  assertClean("deno task sandbox:review", stdout + stderr);
});
