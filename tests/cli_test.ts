/**
 * The command-line contract of DESIGN.md §4, run as a real process: `deno run --no-prompt -A
 * main.ts …` in temporary worktrees, with a temporary global config folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VERSION } from "../src/version.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A worktree plus its own global config folder, so the user's real settings never leak in. */
async function cliWorktree(files: Record<string, string> = {}) {
  const wt = await tempWorktree(files);
  const xdg = await Deno.makeTempDir({ prefix: "replio_xdg_" });
  return {
    path: wt.path,
    globalFile: join(xdg, "replio", "config.yaml"),
    localFile: join(wt.path, ".replio", "config.yaml"),
    read: wt.read,
    /** Runs replio in the worktree. */
    async replio(...args: string[]): Promise<Run> {
      return await runReplio(args, { cwd: wt.path, env: { XDG_CONFIG_HOME: xdg } });
    },
    async [Symbol.asyncDispose]() {
      await wt[Symbol.asyncDispose]();
      await Deno.remove(xdg, { recursive: true });
    },
  };
}

Deno.test("replio --version prints the version", async () => {
  await using wt = await cliWorktree();
  assert.deepEqual(await wt.replio("--version"), {
    code: 0,
    stdout: `replio ${VERSION}\n`,
    stderr: "",
  });
});

Deno.test("replio --help shows commands, examples and exit codes", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("--help");
  assert.equal(run.code, 0);
  for (const part of ["Commands:", "Examples:", "replio tool file_read", "Exit codes: 0 ok"]) {
    assert.ok(run.stdout.includes(part), `--help mentions ${part}`);
  }
  const tool = await wt.replio("tool", "--help");
  assert.equal(tool.code, 0);
  assert.ok(tool.stdout.includes(`replio tool file_read '{"path":"README.md","limit":20}'`));
});

Deno.test("replio exits 2 on an unknown option or command", async () => {
  await using wt = await cliWorktree();
  const option = await wt.replio("tools", "--bogus");
  assert.equal(option.code, 2);
  assert.equal(option.stderr, "error: unknown option '--bogus'\n");
  const command = await wt.replio("toolz");
  assert.equal(command.code, 2);
  assert.equal(command.stderr, 'replio: unknown command "toolz" (did you mean tool or tools?)\n');
});

Deno.test("replio exits 2 for a --path that does not exist", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("tools", "--path", "no/such/dir");
  assert.equal(run.code, 2);
  assert.equal(
    run.stderr,
    `replio: Cannot use --path "${
      join(wt.path, "no/such/dir")
    }": no such directory: pass an existing directory\n`,
  );
});

interface ToolRow {
  name: string;
  permission: string;
  action: string;
  reason: string;
}

interface ToolsListing {
  mode: string;
  worktree: string;
  tools: ToolRow[];
  hidden: { name: string; reason: string }[];
}

Deno.test("replio tools --json --mode plan has no edit or bash tools", async () => {
  await using wt = await cliWorktree();
  const base = JSON.parse((await wt.replio("tools", "--json")).stdout) as ToolsListing;
  const run = await wt.replio("tools", "--json", "--mode", "plan");
  assert.equal(run.code, 0);
  const plan = JSON.parse(run.stdout) as ToolsListing;
  assert.equal(plan.mode, "plan");
  assert.equal(plan.worktree, wt.path);
  assert.deepEqual(
    plan.tools.filter((t) => t.permission === "edit" || t.permission === "bash"),
    [],
  );
  const gated = base.tools.filter((t) => t.permission === "edit" || t.permission === "bash");
  assert.ok(gated.length > 0, "the default mode lists edit or bash tools");
  assert.deepEqual(
    plan.hidden,
    gated.map((t) => ({ name: t.name, reason: "mode plan" })),
  );
  assert.deepEqual(
    plan.tools.map((t) => t.name),
    base.tools.filter((t) => !gated.includes(t)).map((t) => t.name),
  );
});

Deno.test("replio tools hides tools.deny entries and shows actions with reasons", async () => {
  await using wt = await cliWorktree({
    ".replio/config.yaml": "tools:\n  deny: [file_edit]\ntool_permission:\n  ask: ask\n",
  });
  const listing = JSON.parse((await wt.replio("tools", "--json")).stdout) as ToolsListing;
  assert.deepEqual(listing.hidden, [{ name: "file_edit", reason: "tools.deny" }]);
  const ask = listing.tools.find((t) => t.name === "ask");
  assert.deepEqual(ask && { action: ask.action, reason: ask.reason }, {
    action: "ask",
    reason: "tool_permission.ask",
  });
  const text = await wt.replio("tools");
  assert.match(text.stdout, /^mode: default {2}worktree: /);
  assert.match(text.stdout, /\nhidden by policy: file_edit \(tools\.deny\)\n$/);
});

Deno.test("replio tool file_read outside the worktree exits 3 headless and 0 with --yes", async () => {
  await using wt = await cliWorktree();
  const denied = await wt.replio("tool", "file_read", '{"path":"/etc/hostname"}');
  assert.equal(denied.code, 3, denied.stderr);
  // The person is told what happened and the fix; the model's wording stays with --json.
  assert.equal(denied.stdout, "");
  assert.match(
    denied.stderr,
    /^replio tool: file_read needs your confirmation \(outside the worktree\): rerun with --yes to allow it$/m,
  );
  const granted = await wt.replio("tool", "file_read", '{"path":"/etc/hostname"}', "--yes");
  assert.equal(granted.code, 0, granted.stdout + granted.stderr);
  const hostname = (await Deno.readTextFile("/etc/hostname")).trim();
  assert.ok(granted.stdout.includes(hostname), granted.stdout);
});

Deno.test("replio tool exits 0 and prints the result of an allowed call", async () => {
  await using wt = await cliWorktree({ "a.txt": "hello world\n" });
  const run = await wt.replio("tool", "file_edit", '{"path":"a.txt","old":"world","new":"there"}');
  assert.deepEqual(run, {
    code: 0,
    stdout: "Edited a.txt: 1 replacement at line 1 (+1 -1 lines)\n",
    stderr: "",
  });
  assert.equal(await wt.read("a.txt"), "hello there\n");
});

Deno.test("replio tool exits 1 when the tool fails", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("tool", "file_edit", '{"path":"missing.txt","old":"a","new":"b"}');
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^Error: .*missing\.txt/);
});

Deno.test("replio tool exits 1 for an unknown tool, naming the available ones", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("tool", "no_such_tool");
  assert.equal(run.code, 1);
  assert.match(run.stdout, /^Error: unknown tool "no_such_tool"\. Available tools: .*file_edit/);
});

Deno.test("replio tool exits 2 with the parse error for invalid JSON", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("tool", "file_edit", '{"path": a.txt}');
  assert.deepEqual(run, {
    code: 2,
    stdout: "",
    stderr:
      `replio: Cannot parse the arguments of "file_edit": Unexpected token 'a', "{"path": a.txt}" is not valid JSON: pass one JSON object, e.g. '{"path":"README.md"}'\n`,
  });
  const array = await wt.replio("tool", "file_edit", "[1]");
  assert.equal(array.code, 2);
  assert.equal(
    array.stderr,
    `replio: Cannot use [1] as arguments: pass one JSON object, e.g. '{"path":"README.md"}'\n`,
  );
});

Deno.test("replio tool exits 3 for a denied tool, even with --yes", async () => {
  await using wt = await cliWorktree({
    "a.txt": "x\n",
    ".replio/config.yaml": "tools: {deny: [file_edit]}\n",
  });
  const run = await wt.replio("tool", "edit", '{"path":"a.txt","old":"x","new":"y"}', "--yes");
  assert.equal(run.code, 3);
  assert.equal(run.stdout, "");
  assert.match(
    run.stderr,
    /^replio tool: tools\.deny blocks file_edit: take it out of tools\.deny/m,
  );
  assert.equal(await wt.read("a.txt"), "x\n");
});

Deno.test("replio tool --no and the default deny an ask-gated call; --yes grants it", async () => {
  await using wt = await cliWorktree({
    "a.txt": "x\n",
    ".replio/config.yaml": "tool_permission:\n  edit: ask\n",
  });
  const args = ["tool", "file_edit", '{"path":"a.txt","old":"x","new":"y"}', "--json"];
  for (const flags of [[], ["--no"], ["--yes", "--no"]]) {
    const run = await wt.replio(...args, ...flags);
    assert.equal(run.code, 3, `flags ${flags.join(" ")}`);
    const result = JSON.parse(run.stdout);
    assert.equal(result.decision, "denied");
    assert.equal(result.is_error, true);
    assert.equal(result.permissions[0].reason, "tool_permission.edit; headless");
  }
  assert.equal(await wt.read("a.txt"), "x\n");
  const granted = await wt.replio(...args, "--yes");
  assert.equal(granted.code, 0);
  const result = JSON.parse(granted.stdout);
  assert.equal(typeof result.permissions[0].ts, "string");
  delete result.permissions[0].ts;
  assert.deepEqual(result, {
    tool: "file_edit",
    output: "Edited a.txt: 1 replacement at line 1 (+1 -1 lines)",
    is_error: false,
    decision: "granted",
    isolation: "in-process",
    permissions: [{
      call_id: "cli_1",
      tool: "file_edit",
      permission: "edit",
      action: "ask",
      decision: "granted",
      reason: "tool_permission.edit; headless --yes",
      path: join(wt.path, "a.txt"),
      isolation: "in-process",
    }],
  });
  assert.equal(await wt.read("a.txt"), "y\n");
});

Deno.test("replio tool --mode plan refuses an edit with exit 3", async () => {
  await using wt = await cliWorktree({ "a.txt": "x\n" });
  const run = await wt.replio(
    "tool",
    "file_edit",
    '{"path":"a.txt","old":"x","new":"y"}',
    "--mode",
    "plan",
    "--yes",
  );
  assert.equal(run.code, 3);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /^replio tool: mode plan does not allow file_edit: rerun with --mode/m);
});

Deno.test("replio exits 2 for an unknown mode", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("tools", "--mode", "nope");
  assert.equal(run.code, 2);
  assert.equal(
    run.stderr,
    'replio: Cannot use mode "nope": no such mode: use one of default, plan, sandboxed, accept-edits\n',
  );
});

const COMMENTED = "# team settings\nmodel: local-model # pinned\n";

Deno.test("replio config set keeps comments, writes only the keys set, and get reads them", async () => {
  await using wt = await cliWorktree({ ".replio/config.yaml": COMMENTED });
  assert.equal((await wt.replio("config", "set", "tool_permission.bash", "allow")).code, 0);
  assert.equal((await wt.replio("config", "set", "tools.deny", "[web_fetch, bash]")).code, 0);
  assert.equal((await wt.replio("config", "set", "max_rounds", "12")).code, 0);
  assert.equal(
    await wt.read(".replio/config.yaml"),
    COMMENTED +
      "tool_permission:\n  bash: allow\ntools:\n  deny:\n    - web_fetch\n    - bash\nmax_rounds: 12\n",
  );
  assert.deepEqual(await wt.replio("config", "get", "max_rounds", "--trust"), {
    code: 0,
    stdout: "12\n",
    stderr: "",
  });
  assert.equal((await wt.replio("config", "get", "model", "--trust")).stdout, "local-model\n");
  assert.equal(
    (await wt.replio("config", "get", "tools.deny", "--trust")).stdout,
    '["web_fetch","bash"]\n',
  );
  assert.equal(
    (await wt.replio("config", "get", "tool_permission.bash", "--show-origin", "--trust")).stdout,
    `local:${wt.localFile}\tallow\n`,
  );
  assert.equal(
    (await wt.replio("config", "get", "provider", "--show-origin")).stdout,
    "default\topenai\n",
  );
});

Deno.test("replio config get lists every key, with origins on request", async () => {
  await using wt = await cliWorktree({ ".replio/config.yaml": "max_rounds: 12\n" });
  assert.equal((await wt.replio("config", "set", "--global", "model", "global-model")).code, 0);
  const run = await wt.replio("config", "get", "--show-origin", "--trust");
  assert.equal(run.code, 0);
  const lines = run.stdout.trimEnd().split("\n");
  assert.ok(lines.includes('default\tprovider = "openai"'));
  assert.ok(lines.includes(`global:${wt.globalFile}\tmodel = "global-model"`));
  assert.ok(lines.includes(`local:${wt.localFile}\tmax_rounds = 12`));
  const plain = (await wt.replio("config", "get")).stdout.split("\n");
  assert.ok(plain.includes("tools.deny = []"));
  assert.deepEqual(
    (await wt.replio("config", "get", "--global")).stdout,
    'model = "global-model"\n',
  );
  assert.equal(await Deno.readTextFile(wt.globalFile), "model: global-model\n");
});

Deno.test("replio config unset removes a key; unsetting an absent key exits 1", async () => {
  await using wt = await cliWorktree({
    ".replio/config.yaml": COMMENTED + "tool_permission:\n  bash: allow\n",
  });
  assert.equal((await wt.replio("config", "unset", "tool_permission.bash")).code, 0);
  assert.equal(await wt.read(".replio/config.yaml"), COMMENTED);
  const again = await wt.replio("config", "unset", "tool_permission.bash");
  assert.equal(again.code, 1);
  assert.equal(again.stderr, `replio: "tool_permission.bash" is not set in ${wt.localFile}\n`);
});

const BAD_SETS: { args: string[]; stderr: (file: string) => string }[] = [
  {
    args: ["max_rounds", "ten"],
    stderr: (f) =>
      `replio: Cannot set "max_rounds" in ${f}: "max_rounds" must be an integer >= 1, got "ten": see docs/config.md\n`,
  },
  {
    args: ["tool_permission.bash", "sometimes"],
    stderr: (f) =>
      `replio: Cannot set "tool_permission.bash" in ${f}: "tool_permission.bash" must be one of "allow", "ask", "deny", got "sometimes": see docs/config.md\n`,
  },
  {
    args: ["modle", "x"],
    stderr: (f) => `replio: Cannot set "modle" in ${f}: unknown key: did you mean "model"?\n`,
  },
  {
    args: ["tools.deny", "[bash"],
    stderr: (f) =>
      `replio: Cannot set "tools.deny" in ${f}: the value is not valid YAML: Flow sequence must end with a ] at line 1, column 6: quote it or write valid YAML or JSON\n`,
  },
];

for (const { args, stderr } of BAD_SETS) {
  Deno.test(`replio config set ${args.join(" ")} exits 2 and leaves the file untouched`, async () => {
    await using wt = await cliWorktree({ ".replio/config.yaml": COMMENTED });
    const run = await wt.replio("config", "set", ...args);
    assert.deepEqual(run, { code: 2, stdout: "", stderr: stderr(wt.localFile) });
    assert.equal(await wt.read(".replio/config.yaml"), COMMENTED);
  });
}

Deno.test("replio refuses a bad config file with exit 2 and writes nothing", async () => {
  const broken = "max_rounds: 5\nmodel: [unclosed\n";
  await using wt = await cliWorktree({ ".replio/config.yaml": broken });
  const message =
    `replio: Cannot load ${wt.localFile}: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1: fix the file's syntax\n`;
  // Trusted, so the file is loaded; an untrusted one is ignored (tests/security/trust_test.ts).
  const commands = [["config", "get", "--trust"], ["config", "set", "max_rounds", "3"], [
    "tools",
    "--trust",
  ]];
  for (const args of commands) {
    const run = await wt.replio(...args);
    assert.deepEqual(run, { code: 2, stdout: "", stderr: message }, args.join(" "));
  }
  assert.equal(await wt.read(".replio/config.yaml"), broken);
});

Deno.test("replio refuses an unknown key in the global file with exit 2", async () => {
  await using wt = await cliWorktree();
  await Deno.mkdir(join(wt.globalFile, ".."), { recursive: true });
  await Deno.writeTextFile(wt.globalFile, "tool_permision:\n  bash: allow\n");
  const run = await wt.replio("tool", "ask", '{"question":"?"}');
  assert.equal(run.code, 2);
  assert.equal(
    run.stderr,
    `replio: Cannot load ${wt.globalFile}: unknown key "tool_permision": did you mean "tool_permission"?\n`,
  );
});

Deno.test("replio config rejects a bad action with usage and exit 2", async () => {
  await using wt = await cliWorktree();
  const run = await wt.replio("config", "frob");
  assert.deepEqual(run, {
    code: 2,
    stdout: "",
    stderr:
      'replio: Cannot run config: unknown action "frob": use get [KEY], set KEY VALUE or unset KEY\n',
  });
});
