import assert from "node:assert/strict";
import { Config } from "../config/mod.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { loadSession, openSession } from "./mod.ts";

const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
const FAILED = { type: "error", code: "connection", message: "Cannot get a reply" } as const;

Deno.test("Session keeps a prompt that got no reply in the file, out of the history, to retry", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults();
  {
    using session = await openSession(wt.path, { config, id: "s1" });
    session.beginTurn("fix the build");
    session.appendMessage({ role: "user", content: "fix the build" });
    session.append(FAILED);
    session.endTurn("error", USAGE);
    assert.equal(session.unansweredPrompt, "fix the build");
    assert.deepEqual(session.history(), []);
  }
  using resumed = await openSession(wt.path, { config, id: "s1" });
  assert.equal(resumed.unansweredPrompt, "fix the build");
  assert.deepEqual(resumed.history(), []);
  // The retry: the same prompt as a new turn, which the model answers once.
  resumed.beginTurn("fix the build");
  resumed.appendMessage({ role: "user", content: "fix the build" });
  assert.equal(resumed.unansweredPrompt, null);
  resumed.appendMessage({ role: "assistant", content: "Fixed." });
  resumed.endTurn("ok", USAGE);
  assert.deepEqual(resumed.history(), [
    { role: "user", content: "fix the build" },
    { role: "assistant", content: "Fixed." },
  ]);
  const loaded = await loadSession(wt.path, "s1");
  assert.deepEqual(loaded.messages.map((m) => m.content), [
    "fix the build",
    "fix the build",
    "Fixed.",
  ]);
  assert.deepEqual(loaded.history, resumed.history());
});

Deno.test("Session keeps a failed turn's prompt in the history once the model replied (control)", async () => {
  await using wt = await tempWorktree();
  using session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("explain");
  session.appendMessage({ role: "user", content: "explain" });
  session.appendMessage({ role: "assistant", content: "It is" });
  session.append(FAILED);
  session.endTurn("error", USAGE);
  assert.equal(session.unansweredPrompt, null);
  assert.deepEqual(session.history().map((m) => m.content), ["explain", "It is"]);
});

Deno.test("Session sets aside a prompt cancelled before any reply, as a failed one", async () => {
  await using wt = await tempWorktree();
  using session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("wait");
  session.appendMessage({ role: "user", content: "wait" });
  session.endTurn("cancelled", USAGE);
  assert.equal(session.unansweredPrompt, "wait");
  assert.deepEqual(session.history(), []);
});

Deno.test("openSession offers the prompt of a turn a crash cut before any reply", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults();
  {
    using crashed = await openSession(wt.path, { config, id: "s1" });
    crashed.beginTurn("summarise");
    crashed.appendMessage({ role: "user", content: "summarise" });
    // The process dies here: no error, no turn_end.
  }
  using resumed = await openSession(wt.path, { config, id: "s1" });
  assert.equal(resumed.unansweredPrompt, "summarise");
  assert.deepEqual(resumed.history(), []);
  assert.deepEqual((await loadSession(wt.path, "s1")).history, []);
});
