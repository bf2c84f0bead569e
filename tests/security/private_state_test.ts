/**
 * replio's local state stays private (issue 11): sessions and input history hold prompts,
 * pasted secrets, file contents and command output. They were 0644 and not ignored by git, so
 * `git_commit` of `.` committed them with the project's config. Now `.replio/.gitignore` keeps
 * everything but config.yaml and agents/ out of git, and the files are 0600 in 0700 folders.
 * The control shows git would list them without the ignore files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempRepo } from "../../plugins/core-git/_temp_repo.ts";
import { appendHistory, historyPath } from "../../src/repl/history_file.ts";
import { startMockModel } from "../support/mock_model.ts";
import { runReplio } from "../support/replio_process.ts";

/** A headless `replio run` against the mock model: writes one session file. */
async function headlessRun(cwd: string): Promise<void> {
  await using mock = startMockModel([{ text: "done" }]);
  const run = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "the key is sk-pasted"],
    { cwd },
  );
  assert.equal(run.code, 0, run.stderr);
}

async function mode(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

Deno.test("sessions and history stay out of git status and are 0600", async () => {
  await using repo = await tempRepo({ "a.txt": "a\n" });
  await headlessRun(repo.path);
  await appendHistory(historyPath(repo.path), "the key is sk-pasted");

  const sessions = join(repo.path, ".replio", "sessions");
  const [session] = (await Array.fromAsync(Deno.readDir(sessions)))
    .filter((entry) => entry.name.endsWith(".jsonl"));
  assert.ok(session, "the run wrote a session");
  assert.equal(await mode(join(sessions, session.name)), 0o600);
  assert.equal(await mode(historyPath(repo.path)), 0o600);
  assert.equal(await mode(sessions), 0o700);
  assert.equal(await mode(join(repo.path, ".replio")), 0o700);

  assert.equal(await repo.git("status", "--porcelain", "--untracked-files=all"), "");

  // Control: without the ignore files git lists both.
  await Deno.remove(join(repo.path, ".replio", ".gitignore"));
  await Deno.remove(join(sessions, ".gitignore"));
  const listed = await repo.git("status", "--porcelain", "--untracked-files=all");
  assert.match(listed, /^\?\? \.replio\/history$/m);
  assert.match(listed, /^\?\? \.replio\/sessions\/.+\.jsonl$/m);
});

Deno.test("git_commit of . commits the project's replio config but not its local state", async () => {
  // A project that already shares its replio config: .replio exists before replio writes.
  await using repo = await tempRepo({
    "a.txt": "a\n",
    ".replio/config.yaml": "max_rounds: 20\n",
    ".replio/agents/reviewer.md": "---\ndescription: Reviews\n---\nReview.\n",
  });
  await repo.write(".replio/history", "older entry\n");
  await Deno.chmod(join(repo.path, ".replio/history"), 0o644);
  await headlessRun(repo.path);
  await appendHistory(historyPath(repo.path), "the key is sk-pasted");
  assert.equal(await mode(historyPath(repo.path)), 0o600, "an older 0644 history is narrowed");

  await repo.write("a.txt", "b\n");
  await repo.write(".replio/agents/helper.md", "---\ndescription: Helps\n---\nHelp.\n");
  const run = await runReplio(
    ["tool", "git_commit", '{"message":"everything","paths":["."]}', "--yes"],
    { cwd: repo.path },
  );
  assert.equal(run.code, 0, run.stderr);
  const committed = await repo.git("show", "--name-only", "--format=", "HEAD");
  assert.deepEqual(committed.trim().split("\n").sort(), [".replio/agents/helper.md", "a.txt"]);
  const tracked = await repo.git("ls-files", ".replio");
  assert.deepEqual(tracked.trim().split("\n").sort(), [
    ".replio/agents/helper.md",
    ".replio/agents/reviewer.md",
    ".replio/config.yaml",
  ]);
});

Deno.test("a project's own .replio/.gitignore is left as it is", async () => {
  await using repo = await tempRepo({ ".replio/.gitignore": "/history\n/sessions/\n" });
  await appendHistory(historyPath(repo.path), "x");
  assert.equal(await repo.read(".replio/.gitignore"), "/history\n/sessions/\n");
});
