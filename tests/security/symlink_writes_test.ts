/**
 * Symlink-safe writes (issue 11): a write is judged on where it would really land, dangling
 * links included, and lands exactly there. Each attack plants a link whose target is outside
 * the worktree and checks that no file appears there, next to a control showing that writing
 * through the same link with plain Deno APIs does create it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { appendFileNoFollow, writeFileAtomic } from "../../src/plugins/api.ts";
import { resolveToolPath } from "../../src/tools/mod.ts";
import type { PermissionRecord } from "../../src/tools/mod.ts";
import { runReplio } from "../support/replio_process.ts";
import { invokeInWorktree, tempWorktree } from "../support/worktree.ts";
import { exists } from "../support/exists.ts";

/** A worktree and, beside it, a folder that plays "outside". */
async function linkedSetup() {
  const wt = await tempWorktree();
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_outside_" }));
  return {
    wt,
    outside,
    async [Symbol.asyncDispose]() {
      await wt[Symbol.asyncDispose]();
      await Deno.remove(outside, { recursive: true });
    },
  };
}

Deno.test("control: appending through a dangling link with plain Deno creates the target outside", async () => {
  await using s = await linkedSetup();
  const target = join(s.outside, "new");
  await Deno.symlink(target, join(s.wt.path, "link.txt"));
  await Deno.writeTextFile(join(s.wt.path, "link.txt"), "MARKER", { append: true });
  assert.equal(await Deno.readTextFile(target), "MARKER");
});

Deno.test("resolveToolPath follows dangling links, last and intermediate, and stops loops", async () => {
  await using s = await linkedSetup();
  await Deno.symlink(join(s.outside, "new"), join(s.wt.path, "link.txt"));
  await Deno.symlink("../" + s.outside.split("/").pop() + "/dir", join(s.wt.path, "dir"));
  await Deno.symlink("loop_b", join(s.wt.path, "loop_a"));
  await Deno.symlink("loop_a", join(s.wt.path, "loop_b"));
  assert.equal(await resolveToolPath("link.txt", s.wt.path), join(s.outside, "new"));
  assert.equal(await resolveToolPath("dir/a/b.txt", s.wt.path), join(s.outside, "dir", "a/b.txt"));
  assert.equal(await resolveToolPath("plain/new.txt", s.wt.path), join(s.wt.path, "plain/new.txt"));
  await assert.rejects(
    () => resolveToolPath("loop_a", s.wt.path),
    /Cannot resolve ".*loop_a": more than 40 symlinks \(a loop\?\)/,
  );
});

Deno.test("file_write through a dangling link asks as outside the worktree and writes nothing", async () => {
  await using s = await linkedSetup();
  const target = join(s.outside, "new");
  await Deno.symlink(target, join(s.wt.path, "link.txt"));
  for (const mode of ["write", "append"]) {
    const audit: PermissionRecord[] = [];
    const outcome = await invokeInWorktree(
      s.wt,
      "file_write",
      { path: "link.txt", content: "MARKER", mode },
      { headless: "no", audit },
    );
    assert.equal(outcome.decision, "denied", mode);
    assert.deepEqual(
      [audit[0]?.action, audit[0]?.reason, audit[0]?.path],
      ["ask", "outside worktree; headless", target],
    );
  }
  assert.equal(await exists(target), false);
  // The link is still a link: nothing replaced it either.
  assert.equal((await Deno.lstat(join(s.wt.path, "link.txt"))).isSymlink, true);
});

Deno.test("replio tool file_write append through a dangling link exits 3 and lands nowhere", async () => {
  await using s = await linkedSetup();
  const target = join(s.outside, "new");
  await Deno.symlink(target, join(s.wt.path, "link.txt"));
  const args = JSON.stringify({ path: "link.txt", content: "MARKER", mode: "append" });
  const run = await runReplio(["tool", "file_write", args], { cwd: s.wt.path });
  assert.equal(run.code, 3, run.stdout + run.stderr);
  assert.match(run.stderr, /needs your confirmation \(outside the worktree\)/);
  assert.equal(await exists(target), false);
});

Deno.test("a dangling link to a folder is judged at its target", async () => {
  await using s = await linkedSetup();
  await Deno.symlink(join(s.outside, "made"), join(s.wt.path, "made"));
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(s.wt, "file_write", {
    path: "made/x.txt",
    content: "MARKER",
  }, { headless: "no", audit });
  assert.equal(outcome.decision, "denied");
  assert.equal(audit[0]?.reason, "outside worktree; headless");
  assert.equal(await exists(join(s.outside, "made")), false);
});

Deno.test("an approved write through a link lands on the judged target, not on the link", async () => {
  await using s = await linkedSetup();
  const target = join(s.outside, "new");
  await Deno.symlink(target, join(s.wt.path, "link.txt"));
  const outcome = await invokeInWorktree(s.wt, "file_write", {
    path: "link.txt",
    content: "approved",
  }, { headless: "yes" });
  assert.equal(outcome.isError, false, outcome.output);
  assert.equal(await Deno.readTextFile(target), "approved");
  assert.equal((await Deno.lstat(join(s.wt.path, "link.txt"))).isSymlink, true);
});

Deno.test("writes refuse a symlink swapped in after the path was judged", async () => {
  await using s = await linkedSetup();
  const target = join(s.outside, "new");
  // The judged path was a plain file name; by write time a link stands there.
  const judged = join(s.wt.path, "notes.txt");
  await Deno.symlink(target, judged);
  await assert.rejects(
    () => appendFileNoFollow(judged, "MARKER"),
    /Cannot write ".*notes\.txt": a symlink appeared on the path after it was checked/,
  );
  await assert.rejects(
    () => writeFileAtomic(judged, "MARKER", { resolved: true }),
    /a symlink appeared on the path after it was checked/,
  );
  // A folder on the path swapped for a link is caught too.
  await Deno.mkdir(join(s.outside, "d"));
  await Deno.symlink(join(s.outside, "d"), join(s.wt.path, "d"));
  await assert.rejects(
    () => writeFileAtomic(join(s.wt.path, "d", "x.txt"), "MARKER", { resolved: true }),
    /a symlink appeared on the path/,
  );
  assert.equal(await exists(target), false);
  assert.deepEqual([...Deno.readDirSync(join(s.outside, "d"))], []);
});

Deno.test("appendFileNoFollow creates, then appends to, a real file", async () => {
  await using s = await linkedSetup();
  const file = join(s.wt.path, "log.txt");
  assert.equal(await appendFileNoFollow(file, "one\n"), "created");
  assert.equal(await appendFileNoFollow(file, "two\n"), "appended");
  assert.equal(await Deno.readTextFile(file), "one\ntwo\n");
});
