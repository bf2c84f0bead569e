import assert from "node:assert/strict";
import { join } from "node:path";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { tempRepo } from "./_temp_repo.ts";

Deno.test("git status shows a modified file", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write("a.txt", "two\n");
  await repo.write("new.txt", "n\n");
  assert.equal(
    await runTool(repo, "git", { subcommand: "status", args: ["-sb"] }),
    "## main\n M a.txt\n?? new.txt",
  );
});

Deno.test("git diff reports an empty diff as a note", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(repo, "git_diff", {}, { sink });
  assert.equal(outcome.output, "(no changes)");
  const result = sink.events.find((e) => e.type === "tool_result");
  assert.equal(result?.type === "tool_result" && result.is_note, true);
});

Deno.test("git diff shows working-tree and staged changes", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n", "b.txt": "b\n" });
  await repo.write("a.txt", "two\n");
  await repo.write("b.txt", "b\nc\n");
  await repo.git("add", "b.txt");
  assert.equal(
    await runTool(repo, "git_diff", { args: ["--stat"] }),
    " a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
  );
  assert.equal(
    await runTool(repo, "git", { subcommand: "diff", args: ["--cached", "--name-status"] }),
    "M\tb.txt",
  );
  const patch = await runTool(repo, "git", { subcommand: "diff", args: ["-U0", "--", "a.txt"] });
  assert.deepEqual(patch.split("\n").slice(-3), ["@@ -1 +1 @@", "-one", "+two"]);
});

Deno.test("git log, show, branch and rev_parse read history", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  await repo.write("a.txt", "two\n");
  await repo.git("commit", "-qam", "second");
  assert.equal(
    await runTool(repo, "git_log", { args: ["--format=%s", "-n", "5"] }),
    "second\ninit",
  );
  assert.equal(await runTool(repo, "git_log", { args: ["--format=%s", "-1"] }), "second");
  assert.equal(
    await runTool(repo, "git_show", { args: ["HEAD~1", "--format=%s", "--name-only"] }),
    "init\n\na.txt",
  );
  assert.equal(await runTool(repo, "git_branch", {}), "* main");
  assert.equal(await runTool(repo, "git_branch", { args: ["--contains", "HEAD~1"] }), "* main");
  assert.equal(await runTool(repo, "git_branch", { args: ["--list", "ma*"] }), "* main");
  assert.equal(
    await runTool(repo, "git_rev_parse", { args: ["--abbrev-ref", "HEAD"] }),
    "main",
  );
  assert.equal(
    await runTool(repo, "git", { subcommand: "rev_parse", args: ["--show-toplevel"] }),
    repo.path,
  );
});

Deno.test("git reports a worktree that is not a repository", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "git_status", {}),
    `Error: Cannot run git status: "${wt.path}" is not inside a git repository: start replio ` +
      `in a repository (or pass --path), or create one with run_command "git init"`,
  );
});

Deno.test("git passes git's own error on with the fix", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const out = await runTool(repo, "git_show", { args: ["no-such-rev"] });
  assert.match(
    out,
    /^Error: Cannot run git show: exit 128: fatal: ambiguous argument 'no-such-rev'/,
  );
  assert.match(out, /: check the arguments and call git again$/);
});

Deno.test("git stops reading output at the result cap", async () => {
  const big = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join("\n") + "\n";
  await using repo = await tempRepo({ "big.txt": big });
  const out = await runTool(repo, "git_show", {}, { config: { tool_max_result_chars: 2000 } });
  assert.ok(out.endsWith("\n... (truncated)"), out.slice(-100));
  assert.ok(out.length <= 2000 + "... (truncated)".length);
  assert.ok(out.startsWith("commit "));
});

Deno.test("git refuses the model's dangerous arguments, each with the reason", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  const cases: [string, string[], string][] = [
    ["diff", ["--output=/tmp/x"], "it writes to a file"],
    ["log", ["--output", "/tmp/x"], "it writes to a file"],
    ["diff", ["--outp=/tmp/x"], "it abbreviates --output, which writes to a file"],
    ["show", ["-o", "x"], "it writes to a file"],
    ["diff", ["--ext-diff"], "it runs an external diff program"],
    ["log", ["-p", "--textconv"], "it runs text-conversion filter programs"],
    ["log", ["-c"], "it would set git configuration"],
    ["status", ["--config-env=core.pager=X"], "it sets git configuration"],
    ["diff", ["--no-index", "/etc/passwd", "a.txt"], "it compares files outside the repository"],
    ["status", ["--git-dir=/tmp"], "it points git at another repository or worktree"],
    ["log", ["--work-tree=/tmp"], "it points git at another repository or worktree"],
    ["rev_parse", ["--git-dir=/elsewhere"], "it points git at another repository or worktree"],
    ["show", ["--exec-path=/tmp"], "it runs a program"],
    ["log", ["--exec=sh"], "it runs a program"],
    ["log", ["--paginate"], "it starts a pager"],
    ["log", ["--show-signature"], "it runs gpg to verify signatures"],
    ["log", ["--format=%H %G?"], "%G placeholders verify signatures, which runs gpg"],
    ["log", ["--stdin"], "it reads standard input, which is closed here"],
    ["diff", ["--submodule=diff"], "it runs git inside submodules under their own configuration"],
    ["branch", ["-d", "main"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-D", "main"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-m", "main", "x"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-M", "x"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-c", "x"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-C", "x"], "it creates, deletes, renames or reconfigures branches"],
    [
      "branch",
      ["--set-upstream-to=origin/main"],
      "it creates, deletes, renames or reconfigures branches",
    ],
    ["branch", ["-u", "origin/main"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["--unset-upstream"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["-vd", "main"], "it creates, deletes, renames or reconfigures branches"],
    ["branch", ["--edit-description"], "it opens an editor to change a branch description"],
    ["branch", ["feature"], "git branch would create a branch with that name"],
    ["branch", ["-a", "feature"], "git branch would create a branch with that name"],
    ["branch", ["--", "feature"], "git branch would create a branch with that name"],
    ["status", ["-sbo"], "it writes to a file"],
  ];
  for (const [subcommand, args, reason] of cases) {
    const out = await runTool(repo, "git", { subcommand, args });
    const refused = args.find((a) => out.includes(`argument ${JSON.stringify(a)} is refused`));
    assert.ok(refused, `${subcommand} ${args.join(" ")}: ${out}`);
    const command = subcommand === "rev_parse" ? "rev-parse" : subcommand;
    assert.ok(
      out.startsWith(
        `Error: Cannot run git ${command}: argument ${JSON.stringify(refused)} is refused: ` +
          `${reason}: `,
      ),
      `${subcommand} ${args.join(" ")}: ${out}`,
    );
  }
  assert.equal(await repo.git("branch", "--list"), "* main\n");
});

Deno.test("git refuses options outside its allowlist, abbreviations included", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n" });
  assert.equal(
    await runTool(repo, "git_log", { args: ["--onel"] }),
    'Error: Cannot run git log: argument "--onel" is refused: --onel is not an option git log ' +
      "allows here (options must be spelled out in full): remove it or write the full option " +
      "name; for anything else use run_command, which asks first",
  );
  assert.equal(
    await runTool(repo, "git_diff", { args: ["--output=out.txt"] }),
    'Error: Cannot run git diff: argument "--output=out.txt" is refused: it writes to a file: ' +
      "remove it; for that, use run_command, which asks first",
  );
  assert.equal(
    await runTool(repo, "git_status", { args: ["--short=yes"] }),
    'Error: Cannot run git status: argument "--short=yes" is refused: --short takes no value ' +
      "for git status: write it as --short",
  );
  for (const args of [["--color=always"], ["-O/etc/passwd"], ["--no-ind"]]) {
    assert.match(await runTool(repo, "git_diff", { args }), /^Error: Cannot run git diff: /);
  }
  assert.equal(await Array.fromAsync(Deno.readDir(repo.path)).then((e) => e.length), 2);
});

Deno.test("git runs no program the repository's own config names", async () => {
  await using repo = await tempRepo({ "a.txt": "one\n", "b.bin": "bin\n" });
  const marker = join(repo.path, "ran");
  const sh = (tag: string) => `sh -c 'echo ${tag} >> ${marker}; cat "$@"' --`;
  await repo.write(".gitattributes", "*.txt filter=evil diff=evil\n");
  await repo.git("add", ".gitattributes");
  await repo.git("commit", "-qm", "attributes");
  await repo.git("config", "filter.evil.clean", sh("clean"));
  await repo.git("config", "filter.evil.required", "true");
  await repo.git("config", "diff.evil.textconv", sh("textconv"));
  await repo.git("config", "diff.evil.command", sh("diffcommand"));
  await repo.git("config", "diff.external", sh("external"));
  await repo.git("config", "core.fsmonitor", join(repo.path, "fsmonitor.sh"));
  await repo.write("fsmonitor.sh", `#!/bin/sh\necho fsmonitor >> ${marker}\n`);
  await Deno.chmod(join(repo.path, "fsmonitor.sh"), 0o755);
  await repo.git("config", "log.showSignature", "true");
  await repo.git("config", "gpg.program", join(repo.path, "fsmonitor.sh"));
  await repo.git("config", "pretty.sig", "%H %G?");
  await repo.git("config", "core.pager", `sh -c 'echo pager >> ${marker}'`);
  await repo.write("a.txt", "two\n");

  assert.equal(
    await runTool(repo, "git_status", { args: ["--short"] }),
    " M a.txt\n?? fsmonitor.sh",
  );
  assert.equal(
    await runTool(repo, "git_diff", { args: ["--stat"] }),
    " a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
  );
  await runTool(repo, "git_log", { args: ["-p", "--pretty=sig"] });
  await runTool(repo, "git_show", { args: ["HEAD~1"] });
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
});
