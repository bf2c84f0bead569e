import assert from "node:assert/strict";
import { join } from "node:path";
import { chooseSession } from "./choose_session.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { recordLastUsed, sessionsDir } from "../session/mod.ts";

const header = (id: string) =>
  JSON.stringify({
    type: "session",
    ts: "2026-12-01T00:00:00Z",
    id,
    version: 1,
    worktree: "/w",
    created: "2026-12-01T00:00:00Z",
  }) + "\n";

/** Two sessions, `older` and `newer`, last written at t=1000 s and t=2000 s. */
async function twoSessions() {
  const wt = await tempWorktree({
    ".replio/sessions/older.jsonl": header("older"),
    ".replio/sessions/newer.jsonl": header("newer"),
  });
  const at = (id: string, seconds: number) =>
    Deno.utime(join(sessionsDir(wt.path), `${id}.jsonl`), seconds, seconds);
  await at("older", 1000);
  await at("newer", 2000);
  return { wt, at };
}

Deno.test("chooseSession --continue opens the session last used, not the newest file", async () => {
  const { wt, at } = await twoSessions();
  await using _wt = wt;
  // The control: with nothing recorded, the newest file is continued.
  assert.equal(await chooseSession(wt.path, { continue: true }), "newer");
  recordLastUsed(wt.path, "older");
  await Deno.utime(join(sessionsDir(wt.path), ".last"), 3000, 3000);
  assert.equal(await chooseSession(wt.path, { continue: true }), "older");
  // A session written after the record is newer use: it is the one continued.
  await at("newer", 4000);
  assert.equal(await chooseSession(wt.path, { continue: true }), "newer");
});

Deno.test("chooseSession --continue falls back to the newest when the recorded one is gone", async () => {
  const { wt } = await twoSessions();
  await using _wt = wt;
  recordLastUsed(wt.path, "gone");
  assert.equal(await chooseSession(wt.path, { continue: true }), "newer");
});
