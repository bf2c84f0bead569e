import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../config/mod.ts";
import type { ChatMessage, ToolCall } from "../providers/types.ts";
import { tempWorktree } from "../../tests/support/worktree.ts";
import {
  INTERRUPTED_RESULT,
  loadSession,
  type NewRecord,
  openSession,
  pairToolResults,
  sessionFile,
  summaryMessage,
} from "./mod.ts";

const TS = "2026-11-30T14:25:01.000Z";
const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const WRITER = new URL("./testdata/session_writer.ts", import.meta.url).pathname;
const DENO_JSON = new URL("../../deno.json", import.meta.url).pathname;

function call(id: string, name: string, args: unknown = {}): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

async function fileLines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "");
}

Deno.test("openSession round-trips every record type through the file", async () => {
  await using wt = await tempWorktree();
  const records: NewRecord[] = [
    { type: "turn_start", ts: TS, turn: 1, prompt: "read it" },
    { type: "message", ts: TS, message: { role: "user", content: "read it" } },
    {
      type: "message",
      ts: TS,
      message: {
        role: "assistant",
        content: null,
        reasoning: "Reading.",
        tool_calls: [call("c1", "file_read", { path: "a.txt" })],
      },
    },
    {
      type: "permission",
      ts: TS,
      tool: "file_read",
      permission: "read",
      action: "allow",
      decision: "granted",
      reason: "tool_permission.read",
      path: "a.txt",
    },
    {
      type: "message",
      ts: TS,
      message: { role: "tool", tool_call_id: "c1", name: "file_read", content: "hello\n" },
    },
    { type: "analysis", ts: TS, tool_call_id: "c1", text: "The file greets." },
    {
      type: "subagent",
      ts: TS,
      session: "sub_explore_abc123",
      agent_type: "explore",
      task: "look",
    },
    { type: "error", ts: TS, code: "rate_limit", message: "Too many requests" },
    { type: "message", ts: TS, message: { role: "assistant", content: "It says hello." } },
    { type: "turn_end", ts: TS, status: "ok", usage: USAGE },
  ];
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s1", model: "m" });
  for (const record of records) session.append(record);
  session.close();

  const loaded = await loadSession(wt.path, "s1");
  assert.deepEqual(loaded.header, {
    id: "s1",
    version: 1,
    worktree: wt.path,
    created: session.header.created,
    model: "m",
  });
  assert.deepEqual(loaded.records.slice(1), records);
  assert.equal(loaded.records[0]?.type, "session");
  assert.deepEqual(loaded.messages, [
    { role: "user", content: "read it" },
    {
      role: "assistant",
      content: null,
      reasoning: "Reading.",
      tool_calls: [call("c1", "file_read", { path: "a.txt" })],
    },
    { role: "tool", tool_call_id: "c1", name: "file_read", content: "hello\n" },
    { role: "assistant", content: "It says hello." },
  ]);
  assert.deepEqual(loaded.history, loaded.messages);
  assert.deepEqual(loaded.permissions, [{
    ts: TS,
    tool: "file_read",
    permission: "read",
    action: "allow",
    decision: "granted",
    reason: "tool_permission.read",
    path: "a.txt",
  }]);
  assert.deepEqual(loaded.errors, [{ code: "rate_limit", message: "Too many requests", ts: TS }]);
  assert.deepEqual(loaded.warnings, []);
  assert.equal(loaded.truncatedLine, false);
  // One object per line, `type` then `ts` first.
  for (const line of await fileLines(loaded.path)) {
    assert.deepEqual(Object.keys(JSON.parse(line)).slice(0, 2), ["type", "ts"]);
  }
});

Deno.test("openSession writes nothing until the first append", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults() });
  assert.match(session.id, /^ses_\d{8}_\d{6}_[a-z0-9]{6}$/);
  assert.deepEqual(session.history(), []);
  session.close();
  await assert.rejects(Deno.stat(join(wt.path, ".replio")), Deno.errors.NotFound);
});

Deno.test("openSession creates the sessions folder with a .gitignore on first write", async () => {
  await using wt = await tempWorktree();
  using session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.beginTurn("hi");
  assert.equal(await wt.read(".replio/sessions/.gitignore"), "*\n");
  assert.equal(session.path, join(wt.path, ".replio", "sessions", "s1.jsonl"));
  assert.equal((await fileLines(session.path)).length, 2);
});

Deno.test("Session.appendMessage replaces noise_tools results on disk, not in memory", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults().with({ noise_tools: ["web_fetch"] });
  const page = "<html>" + "x".repeat(12339);
  const result: ChatMessage = {
    role: "tool",
    tool_call_id: "c1",
    name: "web_fetch",
    content: page,
  };
  const session = await openSession(wt.path, { config, id: "s1" });
  session.appendMessage({
    role: "assistant",
    content: null,
    tool_calls: [call("c1", "web_fetch")],
  });
  session.appendMessage(result);
  assert.equal(session.history()[1], result);
  session.close();

  const loaded = await loadSession(wt.path, "s1");
  assert.deepEqual(loaded.messages[1], {
    ...result,
    content: "[web_fetch result omitted: 12345 chars (noise_tools)]",
  });
});

Deno.test("Session.appendMessage caps tool results at session_tool_max_chars on disk", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults().with({ session_tool_max_chars: 10 });
  const session = await openSession(wt.path, { config, id: "s1" });
  session.appendMessage({ role: "assistant", content: null, tool_calls: [call("c1", "grep")] });
  session.appendMessage({
    role: "tool",
    tool_call_id: "c1",
    name: "grep",
    content: "0123456789abcdef",
  });
  session.appendMessage({ role: "user", content: "u".repeat(50) });
  session.close();

  const loaded = await loadSession(wt.path, "s1");
  assert.deepEqual(loaded.messages.slice(1), [
    {
      role: "tool",
      tool_call_id: "c1",
      name: "grep",
      content: "0123456789\n[6 more chars omitted (session_tool_max_chars)]",
    },
    { role: "user", content: "u".repeat(50) },
  ]);
});

Deno.test("Session.append never writes the API key the config names", async () => {
  await using wt = await tempWorktree();
  const key = "sk-test-7f3a9c2e1b5d4f60";
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--config", DENO_JSON, WRITER, "key", wt.path, "s1"],
    env: { FAKE_KEY: key },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));

  const text = await Deno.readTextFile(sessionFile(wt.path, "s1"));
  assert.equal(text.includes(key), false);
  const loaded = await loadSession(wt.path, "s1");
  assert.equal(loaded.header?.model, "model-[redacted FAKE_KEY]");
  assert.deepEqual(loaded.messages.map((m) => m.content), [
    "use [redacted FAKE_KEY] please",
    null,
    "echo [redacted FAKE_KEY]\n[redacted FAKE_KEY]",
  ]);
  assert.deepEqual(loaded.errors.map((e) => e.message), ["Bad key [redacted FAKE_KEY]"]);
  assert.equal(loaded.warnings.length, 0);
});

Deno.test("openSession resumes the history and continues the turn numbers", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults();
  const first = await openSession(wt.path, { config, id: "s1" });
  assert.equal(first.beginTurn("one"), 1);
  first.appendMessage({ role: "user", content: "one" });
  first.appendMessage({ role: "assistant", content: "1" });
  first.endTurn("ok", USAGE);
  first.close();

  using second = await openSession(wt.path, { config, id: "s1", model: "ignored" });
  assert.equal(second.header.created, first.header.created);
  assert.equal(second.header.model, undefined);
  assert.deepEqual(second.history(), [
    { role: "user", content: "one" },
    { role: "assistant", content: "1" },
  ]);
  assert.equal(second.beginTurn("two"), 2);
  const lines = await fileLines(second.path);
  assert.equal(lines.filter((line) => line.startsWith('{"type":"session"')).length, 1);
  assert.equal(lines.length, 6);
});

Deno.test("openSession answers a dangling tool call on resume and closes the turn", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults();
  const crashed = await openSession(wt.path, { config, id: "s1" });
  crashed.beginTurn("list and read");
  crashed.appendMessage({ role: "user", content: "list and read" });
  crashed.appendMessage({
    role: "assistant",
    content: null,
    tool_calls: [call("c1", "list_dir"), call("c2", "web_fetch")],
  });
  crashed.appendMessage({ role: "tool", tool_call_id: "c1", name: "list_dir", content: "a.txt" });
  crashed.close(); // the process dies here: c2 never got its result, the turn never ended

  const expected: ChatMessage[] = [
    { role: "user", content: "list and read" },
    {
      role: "assistant",
      content: null,
      tool_calls: [call("c1", "list_dir"), call("c2", "web_fetch")],
    },
    { role: "tool", tool_call_id: "c1", name: "list_dir", content: "a.txt" },
    { role: "tool", tool_call_id: "c2", name: "web_fetch", content: INTERRUPTED_RESULT },
  ];
  assert.deepEqual((await loadSession(wt.path, "s1")).history, expected);

  const resumed = await openSession(wt.path, { config, id: "s1" });
  assert.deepEqual(resumed.history(), expected);
  assert.equal(resumed.beginTurn("again"), 2);
  resumed.close();

  const loaded = await loadSession(wt.path, "s1");
  // The repair is on disk now, exact (noise_tools does not apply to it), before turn 2.
  assert.deepEqual(loaded.messages, expected);
  assert.deepEqual(
    loaded.records.slice(5).map((r) => r.type === "error" ? [r.type, r.code] : [r.type]),
    [["message"], ["error", "interrupted"], ["turn_end"], ["turn_start"]],
  );
  assert.deepEqual(loaded.errors.map((e) => e.message), [
    "Turn 1 did not finish: the process stopped before it ended",
  ]);
});

Deno.test("loadSession skips unusable lines in the middle and goes on", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.appendMessage({ role: "user", content: "one" });
  session.close();
  await Deno.writeTextFile(
    session.path,
    'not json\n{"type":"message","ts":"x","message":{"role":"robot"}}\n{"type":"later","ts":"x"}\n' +
      `{"type":"message","ts":"${TS}","message":{"role":"user","content":"two"}}\n`,
    { append: true },
  );

  const loaded = await loadSession(wt.path, "s1");
  assert.equal(loaded.truncatedLine, false);
  assert.deepEqual(loaded.warnings, [
    `Skipped line 3: ${jsonError("not json")}`,
    `Skipped line 4: "message" record whose message is no chat message`,
    `Skipped line 5: unknown record type "later"`,
  ]);
  assert.deepEqual(loaded.messages, [
    { role: "user", content: "one" },
    { role: "user", content: "two" },
  ]);
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return "";
  } catch (error) {
    return (error as SyntaxError).message;
  }
}

Deno.test("Session.appendCompaction makes the history a summary plus the kept messages", async () => {
  await using wt = await tempWorktree();
  const config = Config.defaults();
  const session = await openSession(wt.path, { config, id: "s1" });
  for (const content of ["a", "b", "c", "d"]) session.appendMessage({ role: "user", content });
  session.appendCompaction("Asked a and b.", 2);
  session.appendMessage({ role: "user", content: "e" });
  const expected = [
    summaryMessage("Asked a and b."),
    { role: "user", content: "c" },
    { role: "user", content: "d" },
    { role: "user", content: "e" },
  ];
  assert.deepEqual(session.history(), expected);
  session.close();

  const loaded = await loadSession(wt.path, "s1");
  assert.deepEqual(loaded.records.at(-2), {
    type: "compaction",
    ts: loaded.records.at(-2)?.ts,
    summary: "Asked a and b.",
    upto: 1,
  });
  assert.deepEqual(loaded.history, expected);
  assert.equal(loaded.messages.length, 5);
});

Deno.test("pairToolResults drops results whose call was compacted away or answered", () => {
  const { messages, interrupted } = pairToolResults([
    { role: "tool", tool_call_id: "old", name: "grep", content: "orphan" },
    { role: "assistant", content: null, tool_calls: [call("c1", "grep")] },
    { role: "tool", tool_call_id: "c1", name: "grep", content: "one" },
    { role: "tool", tool_call_id: "c1", name: "grep", content: "twice" },
    { role: "user", content: "next" },
  ]);
  assert.deepEqual(messages, [
    { role: "assistant", content: null, tool_calls: [call("c1", "grep")] },
    { role: "tool", tool_call_id: "c1", name: "grep", content: "one" },
    { role: "user", content: "next" },
  ]);
  assert.deepEqual(interrupted, []);
});

Deno.test("openSession gives a sub-agent session a sub_ id and its parent", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, {
    config: Config.defaults(),
    parent: "ses_20261130_142501_k3x9qz",
    agentType: "explore",
  });
  assert.match(session.id, /^sub_explore_[a-z0-9]{6}$/);
  session.beginTurn("find the tests");
  session.close();
  const loaded = await loadSession(wt.path, session.id);
  assert.equal(loaded.header?.parent, "ses_20261130_142501_k3x9qz");
  assert.equal(loaded.header?.agent_type, "explore");
});

Deno.test("openSession rejects ids that could leave the sessions folder", async () => {
  await using wt = await tempWorktree();
  for (const id of ["../x", "a/b", "", "..", ".hidden", "a".repeat(101), "a b"]) {
    await assert.rejects(
      openSession(wt.path, { config: Config.defaults(), id }),
      new RangeError(
        `Cannot use session id "${id}": ids are 1 to 100 letters, digits, "_", "." or "-" and ` +
          'do not start with ".": pick another id or run `replio sessions list`',
      ),
    );
  }
});

Deno.test("Session.append after close throws", async () => {
  await using wt = await tempWorktree();
  const session = await openSession(wt.path, { config: Config.defaults(), id: "s1" });
  session.close();
  assert.throws(
    () => session.appendError("x", "y"),
    new Error('Cannot append to session "s1": it is closed: open it again'),
  );
});
