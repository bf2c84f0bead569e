/**
 * Usage errors exit 2 and name the valid choices: an unknown mode (given before or after the
 * subcommand) and an unknown output format are never accepted silently.
 */
import assert from "node:assert/strict";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const CASES: { args: string[]; message: RegExp }[] = [
  { args: ["--mode", "no-such-mode", "tools"], message: /no such mode: use one of default, plan/ },
  { args: ["tools", "--mode", "no-such-mode"], message: /no such mode: use one of default, plan/ },
  {
    args: ["--mode", "no-such-mode", "tool", "file_read", '{"path":"a"}'],
    message: /no such mode: use one of default, plan/,
  },
  {
    args: ["--mode", "plan", "config", "get", "model"],
    message: /Cannot use --mode with "config"/,
  },
  {
    args: ["run", "--output", "yaml", "hi"],
    message: /Allowed choices are text, json, stream-json/,
  },
];

for (const { args, message } of CASES) {
  Deno.test(`replio ${args.join(" ")} is a usage error (exit 2)`, async () => {
    await using wt = await tempWorktree();
    const run = await runReplio(args, { cwd: wt.path });
    assert.equal(run.code, 2, run.stdout + run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, message);
  });
}

Deno.test("replio --mode plan tools lists under the plan mode", async () => {
  await using wt = await tempWorktree();
  const run = await runReplio(["--mode", "plan", "tools", "--json"], { cwd: wt.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as { mode: string }).mode, "plan");
});

Deno.test("replio --path DIR tools lists that worktree", async () => {
  await using wt = await tempWorktree();
  await using other = await tempWorktree();
  const run = await runReplio(["--path", other.path, "tools", "--json"], { cwd: wt.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as { worktree: string }).worktree, other.path);
});
