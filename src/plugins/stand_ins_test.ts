import assert from "node:assert/strict";
import { join } from "node:path";
import { heldStandIns, releaseStandIns, rootGuards } from "./stand_ins.ts";

/** Whether `path` exists. */
function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

Deno.test("releaseStandIns of one finished sandbox keeps a stand-in another sandbox still holds", async () => {
  const worktree = await Deno.makeTempDir({ prefix: "replio_stand_in_" });
  try {
    await Deno.mkdir(join(worktree, ".replio"));
    const git = join(worktree, ".git");
    // Two sandboxes start while the worktree has no .git: each holds the one stand-in.
    for (let sandbox = 0; sandbox < 2; sandbox++) {
      assert.deepEqual(rootGuards(worktree, { hold: true }), [
        { path: git, kind: "stand-in" },
        { path: join(worktree, ".replio"), kind: "present" },
      ]);
    }
    // Each sandbox's argv binds the stand-in as source and destination: `--ro-bind .git .git`.
    const binds = [git, git];
    releaseStandIns(heldStandIns(binds));
    assert.ok(exists(git), "the other sandbox still mounts it: removing it would detach that");
    releaseStandIns(heldStandIns(binds));
    assert.ok(!exists(git), "no sandbox holds it any more");
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
});
