import assert from "node:assert/strict";
import { Config } from "../config/mod.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { listSessionHeads, listSessions, openSession } from "./mod.ts";

Deno.test("listSessions returns [] when the worktree has no sessions", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await listSessions(wt.path), []);
});

Deno.test("listSessions lists every session, most recently updated first", async () => {
  await using wt = await tempWorktree({ ".replio/sessions/notes.txt": "not a session" });
  const config = Config.defaults();
  const older = await openSession(wt.path, { config, id: "older", model: "m1" });
  older.beginTurn("first question");
  older.beginTurn("second question\nwith detail");
  older.close();
  const newer = await openSession(wt.path, { config, id: "newer" });
  newer.beginTurn("x".repeat(150));
  newer.close();
  // mtime is the order; set it explicitly rather than relying on the clock's resolution.
  await Deno.utime(older.path, new Date("2026-11-30T10:00:00Z"), new Date("2026-11-30T10:00:00Z"));
  await Deno.utime(newer.path, new Date("2026-11-30T11:00:00Z"), new Date("2026-11-30T11:00:00Z"));

  const sizes = await Promise.all(
    [newer.path, older.path].map(async (p) => (await Deno.stat(p)).size),
  );
  assert.deepEqual(await listSessions(wt.path), [
    {
      id: "newer",
      created: newer.header.created,
      updated: "2026-11-30T11:00:00.000Z",
      turns: 1,
      firstPrompt: "x".repeat(100),
      lastPrompt: "x".repeat(100),
      size: sizes[0],
    },
    {
      id: "older",
      created: older.header.created,
      updated: "2026-11-30T10:00:00.000Z",
      turns: 2,
      firstPrompt: "first question",
      lastPrompt: "second question",
      size: sizes[1],
      model: "m1",
    },
  ]);
});

Deno.test("listSessions shows a sub-agent session with its parent and type", async () => {
  await using wt = await tempWorktree();
  const sub = await openSession(wt.path, {
    config: Config.defaults(),
    parent: "ses_a",
    agentType: "review",
  });
  sub.beginTurn("check the diff");
  sub.close();
  const [row] = await listSessions(wt.path);
  assert.equal(row?.parent, "ses_a");
  assert.equal(row?.agentType, "review");
  assert.equal(row?.lastPrompt, "check the diff");
});

Deno.test("listSessionHeads orders sessions as listSessions does, from their headers alone", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await listSessionHeads(wt.path), []);
  const config = Config.defaults();
  const top = await openSession(wt.path, { config, id: "top" });
  top.beginTurn("a question");
  top.close();
  const sub = await openSession(wt.path, { config, parent: "top", agentType: "review" });
  sub.beginTurn("check the diff");
  sub.close();
  const headless = await openSession(wt.path, { config, id: "headless" });
  headless.beginTurn("its header line was cut by a crash");
  headless.close();
  const text = await Deno.readTextFile(headless.path);
  await Deno.writeTextFile(headless.path, '{"type":"sess' + text.slice(text.indexOf("\n")));
  const times = { top: "10:00", [sub.id]: "11:00", headless: "12:00" };
  for (const [id, time] of Object.entries(times)) {
    const at = new Date(`2026-11-30T${time}:00Z`);
    await Deno.utime(`${wt.path}/.replio/sessions/${id}.jsonl`, at, at);
  }

  assert.deepEqual(await listSessionHeads(wt.path), [
    { id: "headless", updated: "2026-11-30T12:00:00.000Z" },
    { id: sub.id, updated: "2026-11-30T11:00:00.000Z", parent: "top" },
    { id: "top", updated: "2026-11-30T10:00:00.000Z" },
  ]);
  assert.deepEqual(
    (await listSessions(wt.path)).map((s) => s.id),
    (await listSessionHeads(wt.path)).map((s) => s.id),
  );
});

Deno.test("listSessions reads a long session's first and last turn from its ends", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "long" });
  for (let turn = 1; turn <= 300; turn++) {
    session.beginTurn(`prompt ${turn}\nsecond line`);
    session.appendMessage({ role: "user", content: `prompt ${turn}` });
    // Results larger than a read, so the last turn starts several reads from the end.
    session.appendMessage({ role: "assistant", content: "x".repeat(100_000) });
    session.endTurn("ok", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
  }
  session.close();
  // A kill cut the last line short: the listing reads past it.
  await Deno.writeTextFile(session.path, '{"type":"turn_start","ts":"2026-', { append: true });

  const [row] = await listSessions(wt.path);
  assert.deepEqual(
    { turns: row?.turns, firstPrompt: row?.firstPrompt, lastPrompt: row?.lastPrompt },
    { turns: 300, firstPrompt: "prompt 1", lastPrompt: "prompt 300" },
  );
});
