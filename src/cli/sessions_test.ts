import assert from "node:assert/strict";
import { Config } from "../config/mod.ts";
import { join } from "node:path";
import { openSession, sessionOutputStore } from "../session/mod.ts";
import { runReplio } from "../../tests/support/replio_process.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";

const REPO = new URL("../../", import.meta.url).pathname;

function replio(...args: string[]) {
  return runReplio(args, { cwd: REPO });
}

async function writeSession(worktree: string): Promise<void> {
  const session = await openSession(worktree, { config: Config.defaults(), id: "s1", model: "m" });
  session.beginTurn("list the files");
  session.appendMessage({ role: "user", content: "list the files" });
  session.appendMessage({
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "list_dir", arguments: "{}" } }],
  });
  session.appendPermission({
    tool: "list_dir",
    permission: "list",
    action: "allow",
    decision: "granted",
    reason: "tool_permission.list",
    ts: "2026-11-30T14:25:01.000Z",
  });
  session.appendMessage({ role: "tool", tool_call_id: "c1", name: "list_dir", content: "a.txt" });
  session.appendMessage({ role: "assistant", content: "One file: a.txt." });
  session.endTurn("ok", { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
  session.close();
}

Deno.test("listSessions says so when there are no sessions", async () => {
  await using wt = await tempWorktree();
  const { code, stdout } = await replio("sessions", "list", "--path", wt.path);
  assert.equal(code, 0);
  assert.equal(
    stdout,
    `No sessions yet in ${wt.path}/.replio/sessions: run \`replio\` or \`replio run PROMPT\` to start one\n`,
  );
});

Deno.test("listSessions prints one row per session", async () => {
  await using wt = await tempWorktree();
  await writeSession(wt.path);
  const { code, stdout } = await replio("sessions", "list", "--path", wt.path);
  assert.equal(code, 0);
  const [head, row, ...rest] = stdout.split("\n");
  assert.equal(head, "ID  UPDATED (UTC)     TURNS      SIZE  LAST PROMPT");
  assert.match(
    row ?? "",
    /^s1 {2}\d{4}-\d\d-\d\d \d\d:\d\d {6}1 {2}\s*\d+\.\d KB {2}list the files$/,
  );
  assert.deepEqual(rest, [""]);
});

Deno.test("showSession prints a readable transcript", async () => {
  await using wt = await tempWorktree();
  await writeSession(wt.path);
  const { code, stdout } = await replio("sessions", "show", "s1", "--path", wt.path);
  assert.equal(code, 0);
  const lines = stdout.split("\n");
  assert.match(lines[1] ?? "", /^ {2}created .* · model m · 1 turn · worktree /);
  assert.deepEqual(lines.slice(4), [
    "User: list the files",
    "Call list_dir {} [c1]",
    "Permission list_dir: allow, granted (tool_permission.list)",
    "Result list_dir [c1]: a.txt",
    "Assistant: One file: a.txt.",
    "── Turn ended: ok · 5 tokens ──",
    "",
  ]);
});

Deno.test("showSession --json prints the messages and the audit", async () => {
  await using wt = await tempWorktree();
  await writeSession(wt.path);
  const { code, stdout } = await replio("sessions", "show", "s1", "--json", "--path", wt.path);
  assert.equal(code, 0);
  const shown = JSON.parse(stdout);
  assert.deepEqual(Object.keys(shown), [
    "id",
    "header",
    "messages",
    "permissions",
    "errors",
    "warnings",
  ]);
  assert.equal(shown.id, "s1");
  assert.equal(shown.header.model, "m");
  assert.equal(shown.messages.length, 4);
  assert.deepEqual(shown.permissions, [{
    ts: "2026-11-30T14:25:01.000Z",
    tool: "list_dir",
    permission: "list",
    action: "allow",
    decision: "granted",
    reason: "tool_permission.list",
  }]);
  assert.deepEqual(shown.errors, []);
  assert.deepEqual(shown.warnings, []);
});

Deno.test("showSession exits 2 for an unknown or invalid id and says how to list ids", async () => {
  await using wt = await tempWorktree();
  const unknown = await replio("sessions", "show", "nope", "--path", wt.path);
  assert.equal(unknown.code, 2);
  assert.equal(
    unknown.stderr,
    `replio: Cannot show session "nope": no such session in ${wt.path}/.replio/sessions: ` +
      "run `replio sessions list` to see the ids\n",
  );
  const invalid = await replio("sessions", "show", "../x", "--path", wt.path);
  assert.equal(invalid.code, 2);
  assert.equal(
    invalid.stderr,
    'replio: Cannot show session "../x": not a session id: run `replio sessions list` to see the ids\n',
  );
});

Deno.test("sessions gc removes the kept outputs of old and deleted sessions, and keeps recent ones", async () => {
  await using wt = await tempWorktree();
  await writeSession(wt.path);
  const config = Config.defaults();
  sessionOutputStore(wt.path, "s1", config).save("recent\n".repeat(10));
  sessionOutputStore(wt.path, "gone", config).save("orphan\n".repeat(10));
  const first = await replio("sessions", "gc", "--path", wt.path);
  assert.equal(first.code, 0);
  assert.equal(first.stdout, "Removed the kept outputs of 1 session (70 B): gone\n");
  assert.deepEqual(sessionOutputStore(wt.path, "s1", config).list(), ["o1"]);
  const old = new Date(Date.now() - 20 * 86_400_000);
  await Deno.utime(join(wt.path, ".replio", "sessions", "s1.jsonl"), old, old);
  const second = await replio("sessions", "gc", "--path", wt.path, "--days", "7");
  assert.equal(second.stdout, "Removed the kept outputs of 1 session (70 B): s1\n");
  assert.deepEqual(sessionOutputStore(wt.path, "s1", config).list(), []);
  // The session itself stays.
  assert.ok((await Deno.stat(join(wt.path, ".replio", "sessions", "s1.jsonl"))).isFile);
  const none = await replio("sessions", "gc", "--path", wt.path);
  assert.equal(none.stdout, `No kept outputs older than 14 days in ${wt.path}/.replio/sessions\n`);
});
