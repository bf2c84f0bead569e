import assert from "node:assert/strict";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { readLastUsed, recordLastUsed } from "./last_used.ts";

const header = (id: string) =>
  JSON.stringify({
    type: "session",
    ts: "2026-12-01T00:00:00Z",
    id,
    version: 1,
    worktree: "/w",
    created: "2026-12-01T00:00:00Z",
  }) + "\n";

Deno.test("recordLastUsed and readLastUsed keep the id and when it was recorded", async () => {
  await using wt = await tempWorktree({ ".replio/sessions/a.jsonl": header("a") });
  assert.equal(await readLastUsed(wt.path), null);
  recordLastUsed(wt.path, "a");
  const last = await readLastUsed(wt.path);
  assert.equal(last?.id, "a");
  assert.ok(last!.at.getTime() > 0);
});

Deno.test("recordLastUsed without a sessions folder records nothing and does not throw", async () => {
  await using wt = await tempWorktree();
  recordLastUsed(wt.path, "a");
  assert.equal(await readLastUsed(wt.path), null);
});
