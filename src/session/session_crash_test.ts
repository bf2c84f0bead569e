/**
 * A session after a crash: a line cut by `kill -9`, temporary files of a killed write, a
 * sessions folder left without its .gitignore. The resume makes the file and the worktree whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../config/mod.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { loadSession, openSession, pairToolResults, sessionFile } from "./mod.ts";

const WRITER = new URL("./testdata/session_writer.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../../deno.json", import.meta.url).pathname;
const CUT = '{"type":"message","ts":"2026-11-30T1';

/** A session "s1" holding one user message, then `tail` appended as is. */
async function sessionEndingWith(worktree: string, tail: string): Promise<string> {
  const session = await openSession(worktree, { config: Config.defaults(), id: "s1" });
  session.appendMessage({ role: "user", content: "one" });
  session.close();
  await Deno.writeTextFile(session.path, tail, { append: true });
  return session.path;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, (error) => {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  });
}

Deno.test("openSession drops a last line a kill cut, so every line parses again", async () => {
  await using wt = await tempWorktree();
  const path = await sessionEndingWith(wt.path, CUT);
  const cut = await loadSession(wt.path, "s1");
  assert.equal(cut.truncatedLine, true);
  assert.deepEqual(cut.warnings, [
    "Skipped line 3: it was cut short (the process stopped while writing it)",
  ]);
  assert.deepEqual(cut.messages, [{ role: "user", content: "one" }]);

  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  assert.deepEqual(resumed.warnings, cut.warnings);
  resumed.appendMessage({ role: "user", content: "two" });
  resumed.close();

  const after = await loadSession(wt.path, "s1");
  assert.deepEqual(after.warnings, []);
  assert.deepEqual(after.messages, [
    { role: "user", content: "one" },
    { role: "user", content: "two" },
  ]);
  const lines = (await Deno.readTextFile(path)).split("\n");
  assert.equal(lines.pop(), "");
  for (const line of lines) JSON.parse(line);
});

Deno.test("openSession ends a whole last record that lacks its newline, and keeps it", async () => {
  await using wt = await tempWorktree();
  await sessionEndingWith(
    wt.path,
    '{"type":"error","ts":"2026-11-30T14:25:01.000Z","code":"x","message":"y"}',
  );
  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  resumed.appendMessage({ role: "user", content: "two" });
  resumed.close();
  const after = await loadSession(wt.path, "s1");
  assert.deepEqual(after.warnings, []);
  assert.deepEqual(after.errors.map((e) => e.code), ["x"]);
  assert.equal(after.messages.length, 2);
});

Deno.test("openSession ends a cut line instead of dropping it when the file grew since it was read", async () => {
  await using wt = await tempWorktree();
  const path = await sessionEndingWith(wt.path, CUT);
  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  // Another writer, against the rules: its bytes must not be cut away with the cut line.
  const other = '\n{"type":"error","ts":"2026-11-30T14:25:01.000Z","code":"other","message":"m"}';
  await Deno.writeTextFile(path, other, { append: true });
  resumed.appendMessage({ role: "user", content: "two" });
  resumed.close();
  const after = await loadSession(wt.path, "s1");
  assert.deepEqual(after.errors.map((e) => e.code), ["other"]);
  assert.equal((await Deno.readTextFile(path)).includes(CUT), true);
});

Deno.test("a resume after a crash removes the temporary files its killed writes left", async () => {
  await using wt = await tempWorktree({ "a.txt": "old\n", "b.txt": "old\n" });
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("write a.txt");
  await session.checkpoint(join(wt.path, "a.txt"));
  session.close(); // the process is killed here, in the middle of writing a.txt's new version
  const killed = join(wt.path, ".a.txt.0f1e2d3c.tmp");
  // Controls: a path the turn never saved, and a name writeFileAtomic never gives.
  const notSaved = join(wt.path, ".b.txt.0f1e2d3c.tmp");
  const notOurs = join(wt.path, ".a.txt.backup.tmp");
  for (const file of [killed, notSaved, notOurs]) await Deno.writeTextFile(file, "new, cut sh");

  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  assert.equal(await exists(killed), true, "nothing is removed before the first write");
  resumed.beginTurn("go on");
  resumed.close();
  assert.equal(await exists(killed), false);
  assert.equal(await exists(notSaved), true);
  assert.equal(await exists(notOurs), true);
  assert.equal(await wt.read("a.txt"), "old\n");
});

Deno.test("a resume after a turn that ended leaves temporary files alone", async () => {
  await using wt = await tempWorktree({ "a.txt": "old\n" });
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("write a.txt");
  await session.checkpoint(join(wt.path, "a.txt"));
  session.endTurn("ok", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
  session.close();
  // Not left by a killed write of this session: a turn that ended finished its writes.
  const temp = join(wt.path, ".a.txt.0f1e2d3c.tmp");
  await Deno.writeTextFile(temp, "someone else's");
  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  resumed.beginTurn("go on");
  resumed.close();
  assert.equal(await exists(temp), true);
});

Deno.test("openSession writes the sessions folder's .gitignore when a kill left the folder without", async () => {
  await using wt = await tempWorktree();
  await Deno.mkdir(join(wt.path, ".replio", "sessions"), { recursive: true });
  using session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("hi");
  assert.equal(await wt.read(".replio/sessions/.gitignore"), "*\n");
});

Deno.test("openSession keeps a sessions .gitignore someone edited", async () => {
  await using wt = await tempWorktree();
  await wt.write(".replio/sessions/.gitignore", "*\n!shared.jsonl\n");
  using session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("hi");
  assert.equal(await wt.read(".replio/sessions/.gitignore"), "*\n!shared.jsonl\n");
});

Deno.test("openSession resumes a file a kill -9 cut while appending in a loop", async () => {
  await using wt = await tempWorktree();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--config", DENO_JSON, WRITER, "loop", wt.path, "s1"],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    said += value;
  }
  child.kill("SIGKILL");
  await reader.cancel();
  assert.equal((await child.status).signal, "SIGKILL");

  const text = await Deno.readTextFile(sessionFile(wt.path, "s1"));
  const complete = text.slice(0, text.lastIndexOf("\n") + 1).split("\n").slice(0, -1);
  for (const line of complete) JSON.parse(line); // every complete line parses
  const loaded = await loadSession(wt.path, "s1");
  assert.equal(loaded.truncatedLine, !text.endsWith("\n"));
  assert.equal(loaded.warnings.length, loaded.truncatedLine ? 1 : 0);
  assert.ok(loaded.records.filter((r) => r.type === "turn_end").length >= 13);

  const resumed = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  const history = resumed.history();
  assert.deepEqual(pairToolResults(history).messages, history);
  resumed.beginTurn("after the kill");
  resumed.close();
  const after = await loadSession(wt.path, "s1");
  assert.deepEqual(after.warnings, []);
  assert.equal(after.records.at(-1)?.type, "turn_start");
  const starts = after.records.filter((r) => r.type === "turn_start").length;
  const ends = after.records.filter((r) => r.type === "turn_end").length;
  assert.equal(ends, starts - 1); // every turn before the new one is closed
});
