import assert from "node:assert/strict";
import { Config } from "../config/mod.ts";
import type { ToolCall } from "../providers/types.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { loadSession, openSession, type Session } from "./mod.ts";

const TS = "2026-12-04T10:00:00.000Z";
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function call(id: string): ToolCall {
  return { id, type: "function", function: { name: "file_read", arguments: '{"path":"a"}' } };
}

/** Turns of a call and its result each, a compaction every `compactEvery` turns. */
function writeTurns(session: Session, turns: number, compactEvery: number): void {
  for (let turn = 1; turn <= turns; turn++) {
    session.beginTurn(`turn ${turn}`);
    session.appendMessage({ role: "user", content: `turn ${turn} — déjà vu` });
    session.appendMessage({ role: "assistant", content: null, tool_calls: [call(`c${turn}`)] });
    session.appendMessage({
      role: "tool",
      tool_call_id: `c${turn}`,
      name: "file_read",
      content: `line "${turn}"\n`.repeat(50),
    });
    session.appendMessage({ role: "assistant", content: `done ${turn}` });
    session.endTurn("ok", USAGE);
    if (turn % compactEvery === 0) session.appendCompaction(`Summary up to turn ${turn}.`, 4);
  }
}

/** What a resume continues from, to compare with what a full read of the file gives. */
async function resumed(worktree: string, id: string) {
  using session = await openSession(worktree, { config: Config.defaults(), id });
  return {
    history: session.history(),
    turns: session.turns,
    messageCount: session.messageCount,
    warnings: session.warnings,
  };
}

Deno.test("openSession resumes a compacted session as a full read of the file does", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "long" });
  writeTurns(session, 60, 7);
  // The last turn crashed mid-call: its call has no result yet.
  session.beginTurn("turn 61");
  session.appendMessage({ role: "user", content: "turn 61" });
  session.appendMessage({ role: "assistant", content: null, tool_calls: [call("c61")] });
  session.close();

  const full = await loadSession(wt.path, "long");
  const resume = await resumed(wt.path, "long");
  assert.deepEqual(resume.history, full.history);
  // The file's messages and the synthetic result the resume made for the crashed call.
  assert.equal(resume.messageCount, full.messages.length + 1);
  assert.equal(resume.turns, 61);
  assert.deepEqual(resume.warnings, []);
});

Deno.test("openSession reads the file again in full when a message it kept is unusable", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s" });
  writeTurns(session, 10, 4);
  session.close();
  // After the last compaction, so in the history: shaped like a message line, but its content
  // is no string. A full read skips it and says so; so must the resume.
  await Deno.writeTextFile(
    session.path,
    `{"type":"message","ts":"${TS}","message":{"role":"user","content":5}}\n`,
    { append: true },
  );

  const full = await loadSession(wt.path, "s");
  const resume = await resumed(wt.path, "s");
  assert.deepEqual(full.warnings, [
    `Skipped line ${full.records.length + 1}: "message" record whose message is no chat message`,
  ]);
  assert.deepEqual(resume.warnings, full.warnings);
  assert.deepEqual(resume.history, full.history);
  assert.equal(resume.messageCount, full.messages.length);
});

Deno.test("openSession leaves unparsed the message lines a later compaction replaced", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s" });
  writeTurns(session, 8, 8);
  session.close();
  const lines = (await Deno.readTextFile(session.path)).split("\n");
  // A hand edit broke the first result, which the compaction replaced: shaped like a message
  // line, so a resume counts it without reading it; `sessions show` reads every line.
  const index = lines.findIndex((line) => line.includes('"role":"tool"'));
  lines[index] = lines[index]!.replace('"content":"', '"content":');
  await Deno.writeTextFile(session.path, lines.join("\n"));

  const full = await loadSession(wt.path, "s");
  assert.match(full.warnings[0] ?? "", new RegExp(`^Skipped line ${index + 1}: `));
  const resume = await resumed(wt.path, "s");
  assert.deepEqual(resume.warnings, []);
  assert.equal(resume.messageCount, full.messages.length + 1);
  // The history holds what the writer kept: the summary and the last four messages.
  assert.deepEqual(resume.history.map((m) => m.role), [
    "user",
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.equal(resume.history[1]?.content, "turn 8 — déjà vu");
});
