/**
 * A repository is untrusted input: its `.git/config` (writable by anyone who hands you the
 * repository, and by file_edit) and its hooks can name programs for git to run. Each test sets
 * one such program that appends to a marker file, runs replio's git tools as a user does
 * (`replio tool git … --mode plan`, `replio tool git_commit … --yes`), shows the marker never
 * appears, and then shows that plain `git` in the same repository does run it: the attack is
 * real (issue 11, docs/security.md § git).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { tempRepo } from "../../plugins/core-git/_temp_repo.ts";
import { runReplio } from "../support/replio_process.ts";

/** A folder outside the repository holding the attacker's script and the marker it writes. */
interface Trap extends AsyncDisposable {
  /** The script: appends `<tag> <args>` to the marker, then exits 1 (or runs `then`). */
  script(tag: string, then?: string): Promise<string>;
  /** Marker lines so far; [] when nothing ran. */
  ran(): Promise<string[]>;
}

async function trap(): Promise<Trap> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_trap_" }));
  const marker = join(dir, "ran");
  return {
    async script(tag: string, then = "exit 1") {
      const path = join(dir, `${tag}.sh`);
      await Deno.writeTextFile(path, `#!/bin/sh\necho "${tag} $*" >> '${marker}'\n${then}\n`);
      await Deno.chmod(path, 0o755);
      return path;
    },
    async ran() {
      try {
        return (await Deno.readTextFile(marker)).trim().split("\n");
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return [];
        throw error;
      }
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** `replio tool <name> <args>` in the repository, headless; read-only calls in plan mode. */
async function replioTool(
  cwd: string,
  name: string,
  args: Record<string, unknown>,
  flags: string[] = ["--mode", "plan"],
): Promise<{ output: string; is_error: boolean }> {
  const run = await runReplio(["tool", name, JSON.stringify(args), "--json", ...flags], { cwd });
  assert.ok(run.stdout !== "", `replio tool ${name} printed nothing: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Plain git as a user types it (no replio settings), in `cwd`; the exit code is ignored. */
async function plainGit(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    stdin: "null",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

/**
 * A blob-less partial clone of a two-commit repository: `big.txt` of the first commit is not
 * there, so reading it makes git fetch it from the promisor remote `origin`.
 */
async function partialClone() {
  const server = await tempRepo({ "big.txt": "one\n" });
  await server.write("big.txt", "two\n");
  await server.git("commit", "-qam", "two");
  await server.git("config", "uploadpack.allowFilter", "true");
  const clone = await tempRepo();
  await Deno.remove(clone.path, { recursive: true });
  await server.git("clone", "-q", "--filter=blob:none", `file://${server.path}`, clone.path);
  const missing = (await clone.git("rev-parse", "HEAD~1:big.txt")).trim();
  const objects = await clone.git("cat-file", "--batch-check", "--batch-all-objects");
  assert.ok(!objects.includes(missing), "the first big.txt must be missing from the clone");
  return {
    clone,
    missing,
    async [Symbol.asyncDispose]() {
      await clone[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a repository's core.fsmonitor does not run on git status", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.git("config", "core.fsmonitor", await t.script("fsmonitor"));
  await repo.write("a.txt", "two\n");

  const status = await replioTool(repo.path, "git", { subcommand: "status", args: ["--short"] });
  assert.equal(status.output, " M a.txt");
  assert.deepEqual(await t.ran(), []);

  await plainGit(repo.path, "status", "--short");
  assert.notDeepEqual(await t.ran(), [], "control: plain git status runs the fsmonitor hook");
});

Deno.test("a partial clone's lazy fetch does not run the promisor remote's uploadpack", async () => {
  await using t = await trap();
  await using partial = await partialClone();
  const { clone, missing } = partial;
  await clone.git("config", "remote.origin.uploadpack", await t.script("uploadpack"));
  // The repository may also allow the file transport: that beats `-c protocol.allow=never`.
  await clone.git("config", "protocol.file.allow", "always");

  for (const args of [[missing], ["HEAD~1:big.txt"], ["-p", "HEAD~1"]]) {
    const shown = await replioTool(clone.path, "git", { subcommand: "show", args });
    assert.equal(shown.is_error, true, shown.output);
    assert.match(shown.output, /could not fetch .* never downloads/);
  }
  const log = await replioTool(clone.path, "git", { subcommand: "log", args: ["-p"] });
  assert.equal(log.is_error, true, log.output);
  assert.deepEqual(await t.ran(), []);

  await plainGit(clone.path, "-c", "protocol.allow=never", "show", missing);
  assert.notDeepEqual(
    await t.ran(),
    [],
    "control: -c protocol.allow=never alone still lets the lazy fetch run uploadpack",
  );
});

Deno.test("a partial clone's lazy fetch does not run core.sshCommand", async () => {
  await using t = await trap();
  await using partial = await partialClone();
  const { clone, missing } = partial;
  await clone.git("config", "remote.origin.url", "ssh://git.example.invalid/repo.git");
  await clone.git("config", "core.sshCommand", await t.script("ssh"));

  const shown = await replioTool(clone.path, "git_show", { args: [missing] });
  assert.equal(shown.is_error, true, shown.output);
  assert.deepEqual(await t.ran(), []);

  await plainGit(clone.path, "show", missing);
  assert.ok(
    (await t.ran()).some((line) => /^ssh .*git-upload-pack/.test(line)),
    "control: plain git runs core.sshCommand",
  );
});

Deno.test("a partial clone's lazy fetch does not run an ext:: remote's command", async () => {
  await using t = await trap();
  await using partial = await partialClone();
  const { clone, missing } = partial;
  await clone.git("config", "remote.origin.url", `ext::${await t.script("ext")} %S`);
  await clone.git("config", "protocol.ext.allow", "always");

  const shown = await replioTool(clone.path, "git_show", { args: [missing] });
  assert.equal(shown.is_error, true, shown.output);
  assert.deepEqual(await t.ran(), []);

  await plainGit(clone.path, "show", missing);
  assert.notDeepEqual(await t.ran(), [], "control: plain git runs the ext:: command");
});

Deno.test("a repository's textconv and external diff programs do not run", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n", ".gitattributes": "*.txt diff=evil\n" });
  await repo.git("config", "diff.evil.textconv", await t.script("textconv", 'cat "$1"'));
  await repo.git("config", "diff.evil.command", await t.script("command"));
  await repo.write("a.txt", "two\n");
  await repo.git("commit", "-qam", "two");
  await repo.write("a.txt", "three\n");

  const diff = await replioTool(repo.path, "git_diff", { args: ["-U0"] });
  assert.match(diff.output, /^-two\n\+three$/m);
  await replioTool(repo.path, "git_show", { args: ["HEAD"] });
  await replioTool(repo.path, "git_log", { args: ["-p", "--stat"] });
  assert.deepEqual(await t.ran(), []);

  await plainGit(repo.path, "diff");
  assert.ok((await t.ran()).some((line) => line.startsWith("command ")), "control: diff command");
  await repo.git("config", "--unset", "diff.evil.command");
  await plainGit(repo.path, "show", "HEAD");
  assert.ok((await t.ran()).some((line) => line.startsWith("textconv ")), "control: textconv");
});

Deno.test("a repository's diff.external does not run", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.git("config", "diff.external", await t.script("external"));
  await repo.write("a.txt", "two\n");

  const diff = await replioTool(repo.path, "git_diff", { args: ["--stat"] });
  assert.match(diff.output, /a\.txt \| 2 \+-/);
  assert.deepEqual(await t.ran(), []);

  await plainGit(repo.path, "diff");
  assert.notDeepEqual(await t.ran(), [], "control: plain git diff runs diff.external");
});

Deno.test("a repository's pager does not run", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.git("config", "core.pager", await t.script("pager", "cat"));
  await repo.git("config", "pager.log", await t.script("pagerlog", "cat"));

  await replioTool(repo.path, "git_log", { args: ["--oneline"] });
  await replioTool(repo.path, "git_status", {});
  assert.deepEqual(await t.ran(), []);

  // git pages only a terminal: `script` gives the control one.
  await new Deno.Command("script", {
    args: ["-qec", "git log --oneline", "/dev/null"],
    cwd: repo.path,
    stdin: "null",
    stdout: "null",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  assert.notDeepEqual(await t.ran(), [], "control: git log on a terminal runs the pager");
});

Deno.test("a file included by the repository's config names no program that runs", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n", ".gitattributes": "*.txt filter=inc\n" });
  // The included file is in the worktree, where file_write can put it.
  await repo.write(
    "team.gitconfig",
    `[core]\n\tfsmonitor = ${await t.script("fsmonitor")}\n` +
      `[filter "inc"]\n\tclean = ${await t.script("clean", "cat")}\n\trequired = true\n`,
  );
  await repo.git("config", "include.path", "../team.gitconfig");
  await repo.write("a.txt", "two\n");

  const status = await replioTool(repo.path, "git_status", { args: ["--short"] });
  assert.match(status.output, /^ M a\.txt$/m);
  await replioTool(repo.path, "git_diff", {});
  const committed = await replioTool(
    repo.path,
    "git_commit",
    { message: "two", paths: ["a.txt"] },
    ["--yes"],
  );
  assert.equal(committed.is_error, false, committed.output);
  assert.deepEqual(await t.ran(), []);

  await plainGit(repo.path, "status");
  assert.notDeepEqual(await t.ran(), [], "control: plain git status runs the included programs");
});

Deno.test("git_commit does not run the repository's clean filter", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ ".gitattributes": "*.txt filter=evil\n" });
  await repo.git("config", "filter.evil.clean", await t.script("clean", "cat"));
  await repo.git("config", "filter.evil.required", "true");
  await repo.write("a.txt", "one\n");

  const committed = await replioTool(
    repo.path,
    "git_commit",
    { message: "add a", paths: ["a.txt"] },
    ["--yes"],
  );
  assert.equal(committed.is_error, false, committed.output);
  assert.equal(await repo.git("show", "HEAD:a.txt"), "one\n");
  assert.deepEqual(await t.ran(), []);

  await repo.write("b.txt", "b\n");
  await plainGit(repo.path, "add", "b.txt");
  assert.notDeepEqual(await t.ran(), [], "control: plain git add runs the clean filter");
});

Deno.test("git_commit skips the repository's hooks unless git.run_hooks is set", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  for (const hook of ["pre-commit", "commit-msg", "post-commit", "post-index-change"]) {
    await Deno.copyFile(await t.script(hook, "exit 0"), join(repo.path, ".git/hooks", hook));
  }
  await repo.write("a.txt", "two\n");

  const committed = await replioTool(
    repo.path,
    "git_commit",
    { message: "two", all: true },
    ["--yes"],
  );
  assert.equal(committed.is_error, false, committed.output);
  assert.deepEqual(await t.ran(), []);

  // The repository cannot opt itself in: its config is not loaded until the folder is trusted.
  await repo.write(".replio/config.yaml", "git:\n  run_hooks: true\n");
  await repo.write("a.txt", "three\n");
  const self = await replioTool(repo.path, "git_commit", { message: "3", all: true }, ["--yes"]);
  assert.equal(self.is_error, false, self.output);
  assert.deepEqual(await t.ran(), []);

  // Opted in by the user (a trusted folder), the hooks run.
  await repo.write("a.txt", "four\n");
  const opted = await replioTool(repo.path, "git_commit", { message: "4", all: true }, [
    "--yes",
    "--trust",
  ]);
  assert.equal(opted.is_error, false, opted.output);
  assert.ok((await t.ran()).some((line) => line.startsWith("pre-commit")), "git.run_hooks: true");
});

Deno.test("plain git commit runs the repository's hooks (control)", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await Deno.copyFile(
    await t.script("pre-commit", "exit 0"),
    join(repo.path, ".git/hooks/pre-commit"),
  );
  await repo.write("a.txt", "two\n");
  await plainGit(repo.path, "commit", "-qam", "two");
  assert.notDeepEqual(await t.ran(), []);
});

Deno.test("git_commit does not run the repository's gpg.program", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.git("config", "commit.gpgSign", "true");
  await repo.git("config", "gpg.program", await t.script("gpg"));
  await repo.git("config", "gpg.ssh.program", await t.script("gpgssh"));
  await repo.write("a.txt", "two\n");

  // Signing may fail (the real gpg has no key here); the repository's program never runs.
  await replioTool(repo.path, "git_commit", { message: "two", all: true }, ["--yes"]);
  await repo.git("config", "gpg.format", "ssh");
  await replioTool(repo.path, "git_commit", { message: "two", all: true }, ["--yes"]);
  assert.deepEqual(await t.ran(), []);

  await repo.git("config", "--unset", "gpg.format");
  await plainGit(repo.path, "commit", "-qam", "two");
  assert.notDeepEqual(await t.ran(), [], "control: plain git commit runs gpg.program");
});

Deno.test("a filter from the user's own global config still runs (git-lfs keeps working)", async () => {
  await using t = await trap();
  await using repo = await tempRepo({ ".gitattributes": "*.txt filter=mine\n" });
  const global = join(await Deno.realPath(await Deno.makeTempDir()), "gitconfig");
  await Deno.writeTextFile(
    global,
    `[filter "mine"]\n\tclean = ${await t.script("mine", "cat")}\n\trequired = true\n`,
  );
  // The repository names the same driver: its value loses to the user's.
  await repo.git("config", "filter.mine.clean", await t.script("repo", "cat"));
  await repo.write("a.txt", "one\n");

  const run = await runReplio(
    ["tool", "git_commit", '{"message":"add a","paths":["a.txt"]}', "--yes"],
    { cwd: repo.path, env: { GIT_CONFIG_GLOBAL: global } },
  );
  assert.equal(run.code, 0, run.stderr);
  const ran = await t.ran();
  assert.ok(ran.some((line) => line.startsWith("mine")), "the user's filter runs");
  assert.ok(!ran.some((line) => line.startsWith("repo")), "the repository's does not");
  await Deno.remove(dirname(global), { recursive: true });
});
