/**
 * Protected paths (issue 11): a tool may not rewrite what steers git or replio (`.git/**`,
 * `.replio/**`, the global config folder) without a person. Each attack is tried for real and
 * checked with a marker file, next to a control showing the same setup does trigger it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { IntersectedPolicy } from "../../src/agents/mod.ts";
import { Config } from "../../src/config/mod.ts";
import { createRegistry } from "../../src/plugins/mod.ts";
import {
  createToolContext,
  invokeTool,
  type PermissionRecord,
  ToolPolicy,
} from "../../src/tools/mod.ts";
import type { ConfirmAnswer, ConfirmRequest } from "../../src/ui/events.ts";
import { runReplio } from "../support/replio_process.ts";
import { configWith, invokeInWorktree, RecordingSink, tempWorktree } from "../support/worktree.ts";
import { exists } from "../support/exists.ts";

/** A `.git/config` line that makes `git status` run a command (core.fsmonitor is a hook). */
function fsmonitorConfig(marker: string): string {
  return `[core]\n\tfsmonitor = "touch ${marker}; false"\n`;
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const { code, stderr } = await new Deno.Command("git", { args, cwd, stdout: "null" }).output();
  // fsmonitor's `false` makes git complain, which is the point; anything else must work.
  if (code !== 0 && args[0] !== "status") {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`);
  }
}

/** A sink that answers every confirmation and keeps the requests. */
class AnsweringSink extends RecordingSink {
  readonly requests: ConfirmRequest[] = [];
  constructor(private readonly answer: ConfirmAnswer) {
    super();
  }
  override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.requests.push(request);
    return Promise.resolve(this.answer);
  }
}

/** Runs a tool as the REPL does: no headless answer, a person (the sink) confirms. */
async function invokeInteractive(
  wt: { path: string },
  name: string,
  args: Record<string, unknown>,
  answer: ConfirmAnswer,
  config: Config = Config.defaults(),
  mode?: string,
) {
  const sink = new AnsweringSink(answer);
  const audit: PermissionRecord[] = [];
  const outcome = await invokeTool({
    registry: createRegistry(),
    policy: new ToolPolicy({ config, worktree: wt.path, mode }),
    ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
    sink,
    audit: (record) => audit.push(record),
  }, { id: "call_1", name, arguments: args });
  return { outcome, sink, audit };
}

Deno.test("control: a .git/config written with plain Deno makes git status run a command", async () => {
  await using wt = await tempWorktree();
  await git(wt.path, "init", "-q");
  const marker = join(wt.path, "MARKER");
  await Deno.writeTextFile(join(wt.path, ".git", "config"), fsmonitorConfig(marker), {
    append: true,
  });
  await git(wt.path, "status");
  assert.equal(await exists(marker), true);
});

Deno.test("replio tool file_write to .git/config exits 3 with --yes and git runs nothing", async () => {
  await using wt = await tempWorktree();
  await git(wt.path, "init", "-q");
  const configFile = join(wt.path, ".git", "config");
  const before = await Deno.readTextFile(configFile);
  const marker = join(wt.path, "MARKER");
  const args = JSON.stringify({ path: ".git/config", content: fsmonitorConfig(marker) });
  const run = await runReplio(["tool", "file_write", args, "--yes", "--json"], { cwd: wt.path });
  assert.equal(run.code, 3, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.decision, "denied");
  assert.match(result.output, /^Error: file_write would write a protected path \(\.git\/config\)/);
  assert.equal(result.permissions[0].reason, "protected path .git/config; headless --yes");
  assert.equal(await Deno.readTextFile(configFile), before);
  await git(wt.path, "status");
  assert.equal(await exists(marker), false);
});

Deno.test("control: a plain write in the worktree is allowed headless without asking", async () => {
  await using wt = await tempWorktree();
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(wt, "file_write", { path: "notes.txt", content: "x" }, {
    headless: "no",
    audit,
  });
  assert.equal(outcome.isError, false, outcome.output);
  assert.equal(audit[0]?.reason, "tool_permission.edit");
  assert.equal(await wt.read("notes.txt"), "x");
});

Deno.test("file_write and file_edit on .replio config and plugins are refused headless with --yes", async () => {
  await using wt = await tempWorktree({
    ".replio/config.yaml": "tool_permission:\n  bash: ask\n",
    ".replio/plugins/mine.ts": "export const plugin = {};\n",
  });
  const cases: [string, Record<string, unknown>][] = [
    ["file_edit", { path: ".replio/config.yaml", old: "bash: ask", new: "bash: allow" }],
    ["file_write", { path: ".replio/config.yaml", content: "tool_permission:\n  bash: allow\n" }],
    ["file_write", { path: ".replio/plugins/mine.ts", content: "Deno.exit(0);\n" }],
    ["file_write", { path: ".replio/plugins/new.ts", content: "Deno.exit(0);\n" }],
    ["file_write", { path: ".replio/plugins/mine.ts", content: "//", mode: "append" }],
  ];
  for (const [tool, args] of cases) {
    const outcome = await invokeInWorktree(wt, tool, args, { headless: "yes" });
    assert.equal(outcome.decision, "denied", `${tool} ${args.path}`);
  }
  assert.equal(await wt.read(".replio/config.yaml"), "tool_permission:\n  bash: ask\n");
  assert.equal(await wt.read(".replio/plugins/mine.ts"), "export const plugin = {};\n");
  assert.equal(await exists(join(wt.path, ".replio", "plugins", "new.ts")), false);
});

Deno.test("a protected write asks in the REPL even when a mode allows edits, with the marker", async () => {
  await using wt = await tempWorktree({ ".replio/config.yaml": "max_rounds: 5\n" });
  const config = await configWith({ modes: { yolo: { tool_permission: { edit: "allow" } } } });
  const args = { path: ".replio/config.yaml", content: "max_rounds: 500\n" };
  const declined = await invokeInteractive(wt, "file_write", args, "no", config, "yolo");
  assert.equal(declined.outcome.decision, "declined");
  assert.equal(declined.sink.requests.length, 1);
  assert.equal(declined.sink.requests[0]?.protectedPath, ".replio/config.yaml");
  assert.equal(declined.sink.requests[0]?.path, join(wt.path, ".replio", "config.yaml"));
  assert.equal(declined.sink.requests[0]?.reason, "protected path .replio/config.yaml");
  assert.deepEqual(
    declined.audit.map((r) => [r.action, r.decision, r.reason]),
    [["ask", "declined", "protected path .replio/config.yaml"]],
  );
  assert.equal(await wt.read(".replio/config.yaml"), "max_rounds: 5\n");
  // A person may still say yes: protection is a question, not a ban.
  const granted = await invokeInteractive(wt, "file_write", args, "yes", config, "yolo");
  assert.equal(granted.outcome.isError, false, granted.outcome.output);
  assert.equal(await wt.read(".replio/config.yaml"), "max_rounds: 500\n");
});

Deno.test("nested .git folders, a .git file and links into .git are protected too", async () => {
  await using wt = await tempWorktree({
    "vendor/lib/.git/hooks/README": "hooks\n",
    "linked/.git": "gitdir: /elsewhere\n",
    "src/a.ts": "",
  });
  await git(wt.path, "init", "-q");
  await Deno.symlink(join(wt.path, ".git", "config"), join(wt.path, "settings.ini"));
  await Deno.symlink(".git", join(wt.path, "meta"));
  const paths = [
    ["vendor/lib/.git/hooks/pre-commit", "vendor/lib/.git/hooks/pre-commit"],
    ["linked/.git", "linked/.git"],
    ["settings.ini", ".git/config"],
    ["meta/hooks/post-checkout", ".git/hooks/post-checkout"],
    ["src/../.GIT/config", ".GIT/config"],
  ];
  for (const [path, shown] of paths) {
    const audit: PermissionRecord[] = [];
    const outcome = await invokeInWorktree(wt, "file_write", { path, content: "x" }, {
      headless: "yes",
      audit,
    });
    assert.equal(outcome.decision, "denied", path);
    assert.equal(audit[0]?.reason, `protected path ${shown}; headless --yes`, path);
  }
  assert.equal(await exists(join(wt.path, "vendor/lib/.git/hooks/pre-commit")), false);
  assert.equal(await wt.read("linked/.git"), "gitdir: /elsewhere\n");
});

Deno.test("a write into the global config folder is refused headless with --yes", async () => {
  await using wt = await tempWorktree();
  const xdg = join(wt.path, ".xdg");
  await Deno.mkdir(join(xdg, "replio"), { recursive: true });
  const args = JSON.stringify({ path: ".xdg/replio/config.yaml", content: "max_rounds: 9\n" });
  const run = await runReplio(["tool", "file_write", args, "--yes"], {
    cwd: wt.path,
    env: { XDG_CONFIG_HOME: xdg },
  });
  assert.equal(run.code, 3, run.stdout + run.stderr);
  assert.match(
    run.stderr,
    /^replio tool: file_write would write \.xdg\/replio\/config\.yaml, a protected path only a person can approve/m,
  );
  assert.equal(await exists(join(xdg, "replio", "config.yaml")), false);
  // Control: the same folder name outside the config home is an ordinary write.
  const plain = JSON.stringify({ path: "other/replio/config.yaml", content: "max_rounds: 9\n" });
  const control = await runReplio(["tool", "file_write", plain, "--yes"], {
    cwd: wt.path,
    env: { XDG_CONFIG_HOME: xdg },
  });
  assert.equal(control.code, 0, control.stdout + control.stderr);
});

Deno.test("an agent type that allows edits still gets ask for a protected path", async () => {
  await using wt = await tempWorktree();
  const registry = createRegistry();
  const tool = registry.lookup("file_write")!.tool;
  const parent = new ToolPolicy({ config: Config.defaults(), worktree: wt.path });
  const child = new ToolPolicy({
    config: await configWith({ "tool_permission.edit": "allow" }),
    worktree: wt.path,
  });
  const policy = new IntersectedPolicy(parent, child, "builder");
  const resolution = await policy.resolve(tool, { path: ".git/hooks/pre-push", content: "x" });
  assert.deepEqual(resolution, {
    action: "ask",
    reason: "protected path .git/hooks/pre-push",
    path: join(wt.path, ".git", "hooks", "pre-push"),
    protectedPath: ".git/hooks/pre-push",
  });
  // Control: the same agent type writes an ordinary file without asking.
  const plain = await policy.resolve(tool, { path: "src/hooks.ts", content: "x" });
  assert.deepEqual(plain.action, "allow");
});
