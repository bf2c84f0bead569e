/**
 * tools.allow / tools.deny with aliases (issue 11): `tools.deny: [bash]` must deny run_command,
 * not nothing, and an entry that names no tool is reported, not silently ignored. The attack
 * runs a command that leaves a marker file; the control shows it does when nothing is denied.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runReplio } from "../support/replio_process.ts";
import { invokeInWorktree, tempWorktree } from "../support/worktree.ts";
import { exists } from "../support/exists.ts";

Deno.test("control: run_command called as bash with --yes runs and leaves the marker", async () => {
  await using wt = await tempWorktree();
  const outcome = await invokeInWorktree(wt, "bash", { command: "touch MARKER" });
  assert.equal(outcome.isError, false, outcome.output);
  assert.equal(await exists(join(wt.path, "MARKER")), true);
});

Deno.test("tools.deny [bash] denies run_command under every name, even with --yes", async () => {
  await using wt = await tempWorktree();
  for (const name of ["bash", "run_command", "exec"]) {
    const outcome = await invokeInWorktree(wt, name, { command: "touch MARKER" }, {
      config: { "tools.deny": ["bash"] },
      headless: "yes",
    });
    assert.equal(outcome.decision, "denied", name);
    assert.match(outcome.output, /^Error: run_command is denied by policy \(tools\.deny\)/);
  }
  assert.equal(await exists(join(wt.path, "MARKER")), false);
});

Deno.test("tools.allow accepts an alias for the tool it names", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  const config = { "tools.allow": ["read"] };
  const read = await invokeInWorktree(wt, "file_read", { path: "a.txt" }, { config });
  assert.equal(read.isError, false, read.output);
  const list = await invokeInWorktree(wt, "list_dir", { path: "." }, { config });
  assert.equal(list.decision, "denied");
});

Deno.test("replio tools warns about a tools.deny entry that names no tool and hides the alias's tool", async () => {
  await using wt = await tempWorktree({
    ".replio/config.yaml": "tools:\n  deny: [bash, bsh]\n",
  });
  const text = await runReplio(["tools"], { cwd: wt.path });
  assert.equal(text.code, 0, text.stderr);
  const warning = `warning: tools.deny lists "bsh", which is no tool or alias, so it denies ` +
    `nothing: did you mean "bash" (run_command)? Fix the entry\n`;
  assert.ok(text.stdout.startsWith(warning), text.stdout);
  assert.match(text.stdout, /\nhidden by policy: run_command \(tools\.deny\)\n$/);
  const json = JSON.parse((await runReplio(["tools", "--json"], { cwd: wt.path })).stdout);
  assert.deepEqual(json.warnings, [warning.slice("warning: ".length, -1)]);
  assert.deepEqual(json.hidden, [{ name: "run_command", reason: "tools.deny" }]);
});

Deno.test("replio tools and run warn about an agent type's entry that names no tool", async () => {
  await using wt = await tempWorktree({
    ".replio/config.yaml": "max_retries: 0\nagents:\n  tester:\n    description: Runs tests\n" +
      "    tools:\n      deny: [shell]\n",
  });
  const warning = /warning: agents\.tester\.tools\.deny lists "shell", which is no tool or alias/;
  // Agent types come from the project's config, which loads in a trusted folder only.
  const tools = await runReplio(["tools", "--trust"], { cwd: wt.path });
  assert.match(tools.stdout, warning);
  // The model is unreachable: the warning comes before the turn fails.
  const run = await runReplio(
    ["run", "hi", "--trust", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
    {
      cwd: wt.path,
    },
  );
  assert.match(run.stderr, warning);
});
