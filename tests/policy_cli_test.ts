/**
 * `replio policy test`: recorded sessions re-resolved under a proposed config. A config that
 * would allow what was asked or denied exits 1; one that only tightens is reported, exit 0.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readRecordedCalls } from "../src/session/mod.ts";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

/** A worktree with one recorded headless session: a read (allow) and a command (ask, --yes). */
async function recordedWorktree() {
  const wt = await tempWorktree({ "README.md": "# Demo\n" });
  await using mock = startMockModel([
    {
      toolCalls: [
        { name: "read", arguments: { path: "README.md" } },
        { name: "run_command", arguments: { command: "echo publish" } },
      ],
    },
    { text: "done" },
  ]);
  const ran = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "m", "--yes", "--output", "json", "go"],
    { cwd: wt.path },
  );
  assert.equal(ran.code, 0, ran.stderr);
  return { wt, session: JSON.parse(ran.stdout).session as string };
}

Deno.test("recorded calls pair each tool call with its audit record, aliases included", async () => {
  const { wt, session } = await recordedWorktree();
  await using _ = wt;
  const calls = await Array.fromAsync(
    readRecordedCalls(join(wt.path, ".replio", "sessions", `${session}.jsonl`)),
  );
  assert.deepEqual(
    calls.map((c) => [c.name, c.permission?.tool, c.permission?.action]),
    [["read", "file_read", "allow"], ["run_command", "run_command", "ask"]],
  );
});

Deno.test("policy test exits 1 when a proposed config loosens a recorded decision", async () => {
  const { wt, session } = await recordedWorktree();
  await using _ = wt;
  const proposed = join(wt.path, "proposed.yaml");
  await Deno.writeTextFile(proposed, "tool_permission:\n  bash: allow\n");
  const ran = await runReplio(["policy", "test", "--against", session, "--config", proposed], {
    cwd: wt.path,
  });
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(
    ran.stdout,
    /LOOSER {2}run_command "echo publish": ask → allow \(tool_permission\.bash\)/,
  );
  assert.match(ran.stdout, /2 calls in 1 sessions: 1 would change \(1 looser, 0 stricter\)/);
  assert.match(ran.stdout, /by tool: run_command 1/);

  const json = await runReplio(
    ["policy", "test", "--all", "--config", proposed, "--json"],
    { cwd: wt.path },
  );
  assert.equal(json.code, 1);
  const report = JSON.parse(json.stdout);
  assert.equal(report.calls, 2);
  assert.deepEqual(report.changes[0].before, {
    action: "ask",
    reason: "tool_permission.bash; headless --yes",
  });
  assert.equal(report.changes[0].loosened, true);
});

Deno.test("policy test reports a tightening change and exits 0", async () => {
  const { wt, session } = await recordedWorktree();
  await using _ = wt;
  const proposed = join(wt.path, "proposed.yaml");
  await Deno.writeTextFile(proposed, "tools:\n  deny: [file_read]\n");
  const ran = await runReplio(["policy", "test", "--against", session, "--config", proposed], {
    cwd: wt.path,
  });
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /stricter {2}file_read "README\.md": allow → deny \(tools\.deny\)/);
  // The same config as recorded: nothing changes.
  const same = await runReplio(["policy", "test", "--against", session], { cwd: wt.path });
  assert.equal(same.code, 0);
  assert.match(same.stdout, /0 would change .* 2 unchanged/);
});

Deno.test("policy test names a missing session and exits 2", async () => {
  await using wt = await tempWorktree({});
  const ran = await runReplio(["policy", "test", "--against", "ses_nope"], { cwd: wt.path });
  assert.equal(ran.code, 2);
  assert.match(ran.stderr, /no such session file or session id/);
});

Deno.test("policy explain walks one call through every step, naming the file and line that decided", async () => {
  await using wt = await tempWorktree({ "README.md": "# Demo\n" });
  const global = join(wt.path, ".xdg", "replio", "config.yaml");
  await Deno.mkdir(join(wt.path, ".xdg", "replio"), { recursive: true });
  await Deno.writeTextFile(
    global,
    "model: m\ntool_permission:\n  bash: allow\n  bash_allow: [ls, npm test]\n",
  );
  const denied = await runReplio(
    ["policy", "explain", "bash", '{"command":"npm publish"}'],
    { cwd: wt.path },
  );
  assert.equal(denied.code, 0, denied.stderr);
  assert.match(denied.stdout, /^run_command \(permission bash\) in mode default/);
  assert.match(
    denied.stdout,
    new RegExp(`2\\. category +allow +tool_permission\\.bash +\\[${global}:3\\]`),
  );
  assert.match(
    denied.stdout,
    new RegExp(`permission_fn +deny +bash_allow: "npm publish" is not covered.*\\[${global}:4\\]`),
  );
  assert.match(denied.stdout, /^then: it is refused$/m);

  const json = JSON.parse(
    (await runReplio(
      ["policy", "explain", "file_write", '{"path":".git/config","content":"x"}', "--json"],
      { cwd: wt.path },
    )).stdout,
  );
  assert.deepEqual(json.steps.map((s: { step: string }) => s.step), [
    "name level",
    "category",
    "deno layer",
    "worktree",
    "protected path",
  ]);
  assert.equal(json.action, "ask");
  assert.equal(json.reason, "protected path .git/config");
  assert.equal(json.protected, true);

  const plan = await runReplio(
    [
      "policy",
      "explain",
      "file_edit",
      '{"path":"README.md","old":"a","new":"b"}',
      "--mode",
      "plan",
    ],
    { cwd: wt.path },
  );
  assert.match(plan.stdout, /2\. category +deny +mode plan +\[built-in mode plan\]/);
  assert.match(plan.stdout, /^result: deny \(mode plan\)$/m);

  const bad = await runReplio(["policy", "explain", "no_such_tool", "{}"], { cwd: wt.path });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /Cannot explain no_such_tool: unknown tool/);
});
