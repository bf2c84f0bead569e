import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionRecord } from "../../src/tools/mod.ts";
import { runTool, tempWorktree } from "../../tests/support/worktree.ts";
import { tempRepo } from "./_temp_repo.ts";

const SHORT_HASH = "[0-9a-f]{7,}";

Deno.test("git_commit stages the given paths and commits only them", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write("a.txt", "two\n");
  await repo.write("b.txt", "b\n");
  const out = await runTool(repo, "git_commit", { message: "Add b", paths: ["b.txt"] });
  assert.match(
    out,
    new RegExp(
      `^\\[main ${SHORT_HASH}\\] Add b\n 1 file changed, 1 insertion\\(\\+\\)\n` +
        ` create mode 100644 b.txt$`,
    ),
  );
  assert.equal(await repo.git("log", "--format=%s"), "Add b\ninit\n");
  assert.equal(await repo.git("status", "--short"), " M a.txt\n");
});

Deno.test("git_commit with all stages tracked changes but not new files", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n", "sub/c.txt": "c\n" });
  await repo.write("a.txt", "two\n");
  await Deno.remove(join(repo.path, "sub/c.txt"));
  await repo.write("new.txt", "n\n");
  const out = await runTool(repo, "commit", { message: "Update a, drop c", all: true });
  assert.match(out, new RegExp(`^\\[main ${SHORT_HASH}\\] Update a, drop c\n 2 files changed`));
  assert.equal(await repo.git("status", "--short"), "?? new.txt\n");
});

Deno.test("git_commit makes the root commit of a new repository", async () => {
  await using repo = await tempRepo({ "app/[id]/page.tsx": "x\n" }, { commit: false });
  const out = await runTool(repo, "git_commit", {
    message: "First\n\nWith a body",
    paths: ["app/[id]/page.tsx"],
  });
  assert.match(out, new RegExp(`^\\[main \\(root-commit\\) ${SHORT_HASH}\\] First\n`));
  assert.equal(await repo.git("log", "--format=%B"), "First\n\nWith a body\n\n");
});

Deno.test("git_commit says when nothing is staged", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write("new.txt", "n\n");
  assert.equal(
    await runTool(repo, "git_commit", { message: "Nothing", all: true }),
    "Error: Cannot commit: nothing is staged: pass the changed files in paths, or all: true for " +
      "changes to tracked files (git status shows what changed)",
  );
  assert.equal(await repo.git("log", "--format=%s"), "init\n");
});

Deno.test("git_commit refuses a path outside the worktree", async () => {
  await using outside = await tempWorktree({ "o.txt": "o\n" });
  await using repo = await tempRepo({ "a.txt": "one\n" });
  assert.equal(
    await runTool(repo, "git_commit", { message: "x", paths: [join(outside.path, "o.txt")] }),
    `Error: Cannot commit: path "${join(outside.path, "o.txt")}" is outside the worktree ` +
      `"${repo.path}": stage only files inside the worktree`,
  );
});

Deno.test("git_commit with git.run_hooks reports a failing hook and keeps the changes staged", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write(".git/hooks/pre-commit", "#!/bin/sh\necho 'lint failed: a.txt' >&2\nexit 1\n");
  await Deno.chmod(join(repo.path, ".git/hooks/pre-commit"), 0o755);
  await repo.write("a.txt", "two\n");
  assert.equal(
    await runTool(repo, "git_commit", { message: "Try", all: true }, {
      config: { "git.run_hooks": true },
    }),
    "Error: Cannot run git commit: exit 1: lint failed: a.txt: fix what git reports (the " +
      "changes stay staged) and call git_commit again",
  );
  assert.equal(await repo.git("status", "--short"), "M  a.txt\n");
});

Deno.test("git_commit always asks, even when edits are allowed", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write("a.txt", "two\n");
  const audit: PermissionRecord[] = [];
  const out = await runTool(repo, "git_commit", { message: "x", all: true }, {
    headless: "no",
    audit,
    config: { "tool_permission.edit": "allow" },
  });
  assert.equal(
    out,
    "Error: git_commit needs confirmation (git_commit always confirms) and this headless run " +
      "cannot ask: it was denied; continue without it (the operator can rerun with --yes)",
  );
  assert.deepEqual(
    audit.map(({ action, decision, reason }) => ({ action, decision, reason })),
    [{ action: "ask", decision: "denied", reason: "git_commit always confirms; headless" }],
  );
  assert.equal(await repo.git("log", "--format=%s"), "init\n");
});

Deno.test("git_commit stays denied when edits are denied", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  assert.equal(
    await runTool(repo, "git_commit", { message: "x", all: true }, { mode: "plan" }),
    "Error: git_commit is denied by policy (mode plan): do not retry it; use another tool or " +
      "approach",
  );
});
