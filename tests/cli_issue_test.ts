/**
 * Command-line behaviour people and scripts rely on, run as real processes: listings that agree
 * with the policy, usage exit codes, `--json` everywhere it is offered, and `replio help`.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
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

Deno.test("replio tool --json names the canonical tool when called by an alias", async () => {
  await using wt = await tempWorktree({ "a.txt": "alpha\n" });
  const run = await runReplio(["tool", "read", '{"path":"a.txt"}', "--json"], { cwd: wt.path });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).tool, "file_read");
});

Deno.test("replio tool exits 2 for arguments that do not fit the schema", async () => {
  await using wt = await tempWorktree();
  const missing = await runReplio(["tool", "file_read"], { cwd: wt.path });
  assert.deepEqual(missing, {
    code: 2,
    stdout: "",
    stderr: 'replio: Cannot run "file_read": invalid arguments for file_read: missing required ' +
      'parameter "path": `replio tools --json` lists every tool\'s parameters\n',
  });
  const wrongType = await runReplio(["tool", "read", '{"path":7}'], { cwd: wt.path });
  assert.equal(wrongType.code, 2);
  assert.match(wrongType.stderr, /^replio: Cannot run "read": invalid arguments for file_read/);
});

Deno.test("replio sessions list --json prints the sessions as JSON", async () => {
  await using wt = await tempWorktree();
  const empty = await runReplio(["sessions", "list", "--json"], { cwd: wt.path });
  assert.deepEqual(empty, { code: 0, stdout: "[]\n", stderr: "" });
});

Deno.test("replio help is --help, and replio help run is replio run --help", async () => {
  await using wt = await tempWorktree();
  const help = await runReplio(["help"], { cwd: wt.path });
  const flag = await runReplio(["--help"], { cwd: wt.path });
  assert.deepEqual(help, { ...flag, code: 0 });
  const run = await runReplio(["help", "run"], { cwd: wt.path });
  const runFlag = await runReplio(["run", "--help"], { cwd: wt.path });
  assert.deepEqual(run, { ...runFlag, code: 0 });
  assert.match(run.stdout, /^Usage: replio run /);
});

Deno.test("replio tools --json gives each tool's description and parameters as the model gets them", async () => {
  await using wt = await tempWorktree({ "a.txt": "alpha\n" });
  const listing = await runReplio(["tools", "--json"], { cwd: wt.path });
  const tools = JSON.parse(listing.stdout).tools as {
    name: string;
    description: string;
    parameters: { type: string; properties: Record<string, unknown>; required?: string[] };
  }[];
  const read = tools.find((t) => t.name === "file_read")!;
  const sent = await Deno.readTextFile(
    new URL("../plugins/core-fs/file_read.md", import.meta.url),
  );
  assert.equal(read.description, sent);
  assert.equal(read.parameters.type, "object");
  assert.deepEqual(read.parameters.required, ["path"]);
  // A call built from the schema alone runs.
  const args = Object.fromEntries((read.parameters.required ?? []).map((k) => [k, "a.txt"]));
  const call = await runReplio(["tool", read.name, JSON.stringify(args)], { cwd: wt.path });
  assert.equal(call.code, 0, call.stderr);
  assert.match(call.stdout, /alpha/);
});

/** `replio run` against the mock model. */
function runWith(mock: MockModel, cwd: string, ...args: string[]) {
  return runReplio(["run", "--base-url", mock.baseUrl, "--model", "mock-model", ...args], { cwd });
}

async function sessionIds(worktree: string): Promise<string[]> {
  const listed = await runReplio(["sessions", "list", "--json"], { cwd: worktree });
  return (JSON.parse(listed.stdout) as { id: string }[]).map((s) => s.id);
}

Deno.test("replio run --continue resumes the latest session of the worktree", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "Noted: blue." }, { text: "You said blue." }]);
  assert.equal((await runWith(mock, wt.path, "my colour is blue")).code, 0);
  const [first] = await sessionIds(wt.path);
  const again = await runWith(mock, wt.path, "--continue", "what colour did I say?");
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stdout, "You said blue.\n");
  assert.deepEqual(await sessionIds(wt.path), [first]);
  const contents = mock.requests[1]!.messages.map((m) => m.content);
  assert.ok(contents.includes("my colour is blue") && contents.includes("Noted: blue."));
});

Deno.test("replio run --session with a mistyped id is a usage error naming the closest", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "Hi." }]);
  assert.equal((await runWith(mock, wt.path, "hello")).code, 0);
  const [id] = await sessionIds(wt.path);
  const typo = id!.slice(0, -1) + (id!.endsWith("a") ? "b" : "a");
  const run = await runWith(mock, wt.path, "--session", typo, "go on");
  assert.deepEqual(run, {
    code: 2,
    stdout: "",
    stderr: `replio: Cannot open session "${typo}": no such session: did you mean "${id}"? ` +
      "(replio sessions list shows them all)\n",
  });
  assert.deepEqual(await sessionIds(wt.path), [id]);
  assert.equal(mock.requests.length, 1);
});

Deno.test("--permission-mode accept-edits allows edits in the worktree but still asks for commands", async () => {
  await using wt = await tempWorktree({ ".replio/config.yaml": "tool_permission:\n  edit: ask\n" });
  const listing = await runReplio(["tools", "--json", "--mode", "accept-edits"], { cwd: wt.path });
  const tools = JSON.parse(listing.stdout).tools as ListedTool[];
  const actions = Object.fromEntries(tools.map((t) => [t.name, `${t.action} (${t.reason})`]));
  assert.equal(actions.file_write, "allow (mode accept-edits)");
  assert.equal(actions.run_command, "ask (mode accept-edits)");
  assert.equal(actions.git_commit, "ask (git_commit always confirms)");
  const help = await runReplio(["run", "--help"], { cwd: wt.path });
  assert.match(help.stdout, /--permission-mode <mode>/);
  // `run --permission-mode` reaches the policy like --mode: an unknown one is a usage error.
  const unknown = await runReplio(["run", "--permission-mode", "no-such-mode", "hi"], {
    cwd: wt.path,
  });
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /no-such-mode.*accept-edits/s);

  // The calls themselves, headless and without --yes. Control: outside the mode the edit asks,
  // and a headless ask is a denial (exit 3).
  const write = ["tool", "file_write", '{"path":"notes.txt","content":"hi\\n"}'];
  const asked = await runReplio(write, { cwd: wt.path });
  assert.equal(asked.code, 3, asked.stdout + asked.stderr);
  assert.equal(await Deno.stat(join(wt.path, "notes.txt")).catch(() => null), null);
  const edited = await runReplio([...write, "--mode", "accept-edits"], { cwd: wt.path });
  assert.equal(edited.code, 0, edited.stdout + edited.stderr);
  assert.equal(await Deno.readTextFile(join(wt.path, "notes.txt")), "hi\n");
  const command = await runReplio(
    ["tool", "run_command", '{"command":"touch ran"}', "--mode", "accept-edits"],
    { cwd: wt.path },
  );
  assert.equal(command.code, 3, command.stdout + command.stderr);
  assert.equal(await Deno.stat(join(wt.path, "ran")).catch(() => null), null);
});

Deno.test("replio run tells the person why a call did not run, not what the model is told", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "bash", arguments: { command: "touch x" } }] },
    { text: "Skipped it." },
  ]);
  const run = await runWith(mock, wt.path, "make x");
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /\n! Not run: it needs approval \(tool_permission\.bash\) and a headless run cannot ask: rerun with --yes to allow it\n/,
  );
  assert.ok(!run.stderr.includes("continue without it"), run.stderr);
  const toolMessage = mock.requests[1]!.messages.at(-1)!;
  assert.match(String(toolMessage.content), /continue without it/);
});

Deno.test("replio help with an unknown command is a usage error", async () => {
  await using wt = await tempWorktree();
  const run = await runReplio(["help", "nosuch"], { cwd: wt.path });
  assert.equal(run.code, 2);
});
