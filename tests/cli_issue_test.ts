/**
 * Command-line behaviour people and scripts rely on, run as real processes: listings that agree
 * with the policy, usage exit codes, `--json` everywhere it is offered, and `replio help`.
 * @module
 */
import assert from "node:assert/strict";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

interface ListedTool {
  name: string;
  action: string;
  reason: string;
}

Deno.test("replio tools lists git_commit as it behaves: ask, even where edits are allowed", async () => {
  await using wt = await tempWorktree({
    ".replio/config.yaml": "tool_permission:\n  edit: allow\n",
  });
  const listing = await runReplio(["tools", "--json"], { cwd: wt.path });
  assert.equal(listing.code, 0, listing.stderr);
  const tools = JSON.parse(listing.stdout).tools as ListedTool[];
  const commit = tools.find((t) => t.name === "git_commit");
  assert.deepEqual(commit && { action: commit.action, reason: commit.reason }, {
    action: "ask",
    reason: "git_commit always confirms",
  });
  // The call follows the listing: without --yes a headless call is denied for that reason.
  await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output();
  const call = await runReplio(["tool", "git_commit", '{"message":"x","all":true}', "--json"], {
    cwd: wt.path,
  });
  assert.equal(call.code, 3);
  assert.deepEqual(
    JSON.parse(call.stdout).permissions.map((p: { reason: string }) => p.reason),
    ["git_commit always confirms; headless"],
  );
});
