import assert from "node:assert/strict";
import { join } from "../fs/path.ts";
import { protectedBelow } from "./protected_below.ts";
import { SandboxRefused } from "./sandbox_refused.ts";

/** A temporary folder outside /tmp's usual churn, removed on dispose. */
async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_below_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

async function git(...args: string[]): Promise<void> {
  const run = await new Deno.Command("git", { args: ["-c", "init.defaultBranch=main", ...args] })
    .output();
  assert.ok(run.success, `git ${args.join(" ")}: ${new TextDecoder().decode(run.stderr)}`);
}

const rel = (root: string, paths: string[]) => paths.map((path) => path.slice(root.length + 1));

Deno.test("protectedBelow finds nested .git folders and files, .replio, and git folders by shape", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await git("init", "-q", root);
  await git("init", "-q", join(root, "vendor/lib"));
  await git("init", "-q", "--bare", join(root, "mirrors/tool.git"));
  // A linked worktree inside the repository: its .git is a file.
  await git("-C", root, "commit", "-q", "--allow-empty", "-m", "x");
  await git("-C", root, "worktree", "add", "-q", join(root, "trees/feature"));
  await Deno.mkdir(join(root, "node_modules/pkg/.replio"), { recursive: true });
  await Deno.mkdir(join(root, ".replio"));
  // A link to a repository elsewhere is not followed: its target is outside, read-only anyway.
  await Deno.symlink(join(root, "vendor"), join(root, "linked"));
  assert.deepEqual(rel(root, protectedBelow(root)), [
    "mirrors/tool.git",
    "node_modules/pkg/.replio",
    "trees/feature/.git",
    "vendor/lib/.git",
  ]);
});

Deno.test("protectedBelow sees a repository made since the last look, and one removed", async () => {
  await using dir = await tempDir();
  const root = dir.path;
  await Deno.mkdir(join(root, "a/b/c"), { recursive: true });
  assert.deepEqual(protectedBelow(root), []);
  await git("init", "-q", join(root, "a/b/c"));
  assert.deepEqual(rel(root, protectedBelow(root)), ["a/b/c/.git"]);
  // A folder moved in whole brings its repository along.
  await Deno.mkdir(join(dir.path, "x"));
  await git("init", "-q", join(dir.path, "x/moved"));
  await Deno.rename(join(dir.path, "x/moved"), join(root, "a/moved"));
  assert.deepEqual(rel(root, protectedBelow(root)), ["a/b/c/.git", "a/moved/.git"]);
  await Deno.remove(join(root, "a/b"), { recursive: true });
  assert.deepEqual(rel(root, protectedBelow(root)), ["a/moved/.git"]);
});

Deno.test("protectedBelow refuses a worktree with more folders than it may look through", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 5; i++) await Deno.mkdir(join(dir.path, `d${i}`));
  assert.deepEqual(protectedBelow(dir.path, 6), []);
  await Deno.mkdir(join(dir.path, "d5"));
  assert.throws(() => protectedBelow(dir.path, 6), (error: Error) => {
    assert.ok(error instanceof SandboxRefused);
    assert.equal(
      error.message,
      `Cannot run commands in the sandbox: "${dir.path}" holds more than 6 folders, too many ` +
        "to look through for nested .git folders before every command: start replio in a " +
        "smaller folder, or set sandbox.mode to off",
    );
    return true;
  });
});

Deno.test({
  name: "protectedBelow guards a folder it may not list (it could hold a repository)",
  // Root reads any folder whatever its mode.
  ignore: Deno.uid() === 0,
  async fn() {
    await using dir = await tempDir();
    await Deno.mkdir(join(dir.path, "closed/inner"), { recursive: true });
    await Deno.chmod(join(dir.path, "closed"), 0o300);
    try {
      assert.deepEqual(rel(dir.path, protectedBelow(dir.path)), ["closed"]);
    } finally {
      await Deno.chmod(join(dir.path, "closed"), 0o755);
    }
  },
});
