/**
 * The tool loop against the scripted mock model: real provider, registry, policy, tools and
 * session files. Every test also checks the pairing invariant on every request the mock got.
 */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { defineTool, type Plugin } from "../src/plugins/api.ts";
import { loadSession } from "../src/session/mod.ts";
import { startMockModel } from "./support/mock_model.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { RecordingSink, tempWorktree } from "./support/worktree.ts";

const signal = () => new AbortController().signal;

Deno.test("Agent.runTurn runs a tool call and feeds the result back", async () => {
  await using wt = await tempWorktree({ "notes.txt": "alpha\nbeta\n" });
  await using mock = startMockModel([
    { text: "Let me look.", toolCalls: [{ name: "file_read", arguments: { path: "notes.txt" } }] },
    { text: "The file has two lines." },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("what is in notes.txt?", signal());
  assert.equal(result.status, "ok");
  assert.equal(result.content, "Let me look.The file has two lines.");
  assert.equal(result.rounds, 2);
  assert.equal(result.tool_calls.length, 1);
  assert.equal(result.tool_calls[0]!.name, "file_read");
  assert.match(result.tool_calls[0]!.output, /alpha/);
  assert.deepEqual(result.permissions.map((p) => [p.tool, p.decision, p.reason]), [
    ["file_read", "granted", "tool_permission.read"],
  ]);
  const toolMessage = mock.requests[1]!.messages.at(-1)!;
  assert.equal(toolMessage.role, "tool");
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn writes every message, permission and turn boundary to the session", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] },
    { text: "done" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  await t.agent.runTurn("read a.txt", signal());
  const loaded = await loadSession(wt.path, t.session.id);
  const types = loaded.records.map((r) => r.type);
  assert.deepEqual(types, [
    "session",
    "turn_start",
    "message",
    "message",
    "permission",
    "message",
    "message",
    "turn_end",
  ]);
  assert.deepEqual(loaded.permissions.map((p) => p.tool), ["file_read"]);
  assert.deepEqual(loaded.messages.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
});

Deno.test("Agent.runTurn turns invalid JSON arguments into an error the model can correct", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: '{"path": "a.txt"' }] },
    { toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] },
    { text: "ok" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("read", signal());
  assert.equal(result.status, "ok");
  assert.match(result.tool_calls[0]!.output, /^Error: invalid arguments: the JSON did not parse/);
  assert.equal(result.tool_calls[1]!.is_error, false);
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn answers unknown tools with the list of available tools", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "read_everything", arguments: {} }] },
    { text: "sorry" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("go", signal());
  assert.match(
    result.tool_calls[0]!.output,
    /^Error: unknown tool "read_everything"\. Available tools: .*file_read/,
  );
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn denies ask-gated tools headless and tells the model", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch marker" } }] },
    { text: "I could not run it." },
  ]);
  using t = await startTestAgent(wt.path, mock, { headless: "no" });
  const result = await t.agent.runTurn("make a marker", signal());
  assert.equal(result.status, "ok");
  assert.match(result.tool_calls[0]!.output, /needs confirmation .*headless run cannot ask/);
  assert.deepEqual(result.permissions.map((p) => [p.action, p.decision]), [["ask", "denied"]]);
  await assert.rejects(Deno.stat(`${wt.path}/marker`), Deno.errors.NotFound);
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn gives every call of a multi-call round exactly one result", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n", "b.txt": "b\n" });
  await using mock = startMockModel([
    {
      toolCalls: [
        { name: "file_read", arguments: { path: "a.txt" } },
        { name: "run_command", arguments: { command: "echo hi" } },
        { name: "file_read", arguments: { path: "b.txt" } },
      ],
    },
    { text: "read both" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("read both", signal());
  assert.equal(result.tool_calls.length, 3);
  const tools = mock.requests[1]!.messages.filter((m) => m.role === "tool");
  assert.equal(tools.length, 3);
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn stops a model that never answers at max_rounds", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  const call = { toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] };
  await using mock = startMockModel([call, call, call]);
  using t = await startTestAgent(wt.path, mock, { maxRounds: 3 });
  const result = await t.agent.runTurn("loop", signal());
  assert.equal(result.status, "max_rounds");
  assert.equal(result.rounds, 3);
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn reports a provider error as status error", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ fault: "401" }]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("hi", signal());
  assert.equal(result.status, "error");
  assert.equal(result.errors.length, 1);
  const loaded = await loadSession(wt.path, t.session.id);
  assert.equal(loaded.errors.length, 1);
});

Deno.test("Agent.runTurn cancelled mid-stream keeps the partial text in the session", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{
    text: "partial answer that hangs",
    fault: "hang",
    faultAfter: 3,
  }]);
  const controller = new AbortController();
  const sink = new RecordingSink();
  const emit = sink.emit.bind(sink);
  sink.emit = (event) => {
    emit(event);
    if (event.type === "text") controller.abort();
  };
  using t = await startTestAgent(wt.path, mock, { sink });
  const result = await t.agent.runTurn("hi", controller.signal);
  assert.equal(result.status, "cancelled");
  assert.ok(result.content.length > 0);
  const loaded = await loadSession(wt.path, t.session.id);
  const last = loaded.messages.at(-1)!;
  assert.equal(last.role, "assistant");
  assert.equal(last.content, result.content);
  assert.equal(loaded.records.at(-1)!.type, "turn_end");
});

Deno.test("Agent.runTurn puts AGENTS.md and the mode instructions into the system prompt", async () => {
  await using wt = await tempWorktree({ "AGENTS.md": "Always answer in French." });
  await using mock = startMockModel([{ text: "Bonjour" }]);
  using t = await startTestAgent(wt.path, mock, { mode: "plan" });
  await t.agent.runTurn("hi", signal());
  const system = mock.requests[0]!.messages[0]!;
  assert.equal(system.role, "system");
  assert.match(String(system.content), /Always answer in French\./);
  assert.match(String(system.content), /plan mode/);
  const offered = (mock.requests[0]!.tools ?? []).map((t) =>
    (t as { function: { name: string } }).function.name
  );
  assert.ok(offered.includes("file_read"));
  assert.ok(!offered.includes("file_write") && !offered.includes("run_command"));
});

Deno.test("Agent.runTurn answers ask with no one to answer when headless", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    {
      toolCalls: [{
        name: "ask",
        arguments: { question: "Which database?", options: ["pg", "sqlite"] },
      }],
    },
    { text: "I will pick sqlite." },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("set up a db", signal());
  assert.equal(result.status, "ok");
  assert.match(result.tool_calls[0]!.output, /^Error: ask has no one to answer/);
  assert.deepEqual(result.permissions.map((p) => [p.tool, p.decision]), [["ask", "granted"]]);
});

Deno.test("Agent.compact summarises older turns and keeps the session log whole", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { text: "one", usage: { prompt_tokens: 10 } },
    { text: "two", usage: { prompt_tokens: 10 } },
    { text: "three", usage: { prompt_tokens: 5000 } },
    { text: "- the user counted to three" },
    { text: "four" },
  ]);
  using t = await startTestAgent(wt.path, mock, {
    config: { context_window: 4096, compact_threshold: 0.5 },
  });
  for (const prompt of ["1", "2", "3"]) await t.agent.runTurn(prompt, signal());
  assert.equal(mock.requests[3]!.stream, false);
  await t.agent.runTurn("4", signal());
  const fourth = mock.requests[4]!.messages;
  assert.match(String(fourth[1]!.content), /the user counted to three/);
  assert.deepEqual(fourth.slice(2).map((m) => m.content), ["2", "two", "3", "three", "4"]);
  const loaded = await loadSession(wt.path, t.session.id);
  assert.equal(loaded.records.filter((r) => r.type === "message").length, 8);
  assert.equal(loaded.records.filter((r) => r.type === "compaction").length, 1);
});

const echoPlugin: Plugin = {
  name: "test-echo",
  tools: [
    defineTool({
      name: "lookup",
      description: "Look something up",
      parameters: Type.Object({ query: Type.String({ description: "The query" }) }),
      category: "search",
      permission: "read",
      refine: "query",
    }, ({ query }: { query: string }) => `looked up: ${query}`),
  ],
};

Deno.test("Agent.runTurn refines short refine queries when query_refine is on", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "lookup", arguments: { query: "deno" } }] },
    { text: "deno runtime permissions flags" },
    { text: "found" },
  ]);
  using t = await startTestAgent(wt.path, mock, {
    config: { query_refine: true },
    plugins: [echoPlugin],
  });
  const result = await t.agent.runTurn("how do deno permissions work?", signal());
  assert.equal(result.tool_calls[0]!.output, "looked up: deno runtime permissions flags");
  assert.deepEqual(mock.violations, []);
});

Deno.test("Agent.runTurn writes a tool analysis to the session only when tool_analysis is on", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "lookup", arguments: { query: "a long specific query here" } }] },
    { text: "The lookup returned one item." },
    { text: "done" },
  ]);
  using t = await startTestAgent(wt.path, mock, {
    config: { tool_analysis: true },
    plugins: [echoPlugin],
  });
  await t.agent.runTurn("look", signal());
  const loaded = await loadSession(wt.path, t.session.id);
  const analysis = loaded.records.find((r) => r.type === "analysis");
  assert.ok(analysis && analysis.type === "analysis");
  assert.equal(analysis.text, "The lookup returned one item.");
  assert.ok(!JSON.stringify(mock.requests[2]!.messages).includes("The lookup returned one item."));
});

Deno.test("Agent resumes a session with its history", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "first answer" }, { text: "second answer" }]);
  {
    using t = await startTestAgent(wt.path, mock, { sessionId: "ses_resume_test" });
    await t.agent.runTurn("first", signal());
  }
  using t = await startTestAgent(wt.path, mock, { sessionId: "ses_resume_test" });
  await t.agent.runTurn("second", signal());
  assert.deepEqual(mock.requests[1]!.messages.slice(1).map((m) => m.content), [
    "first",
    "first answer",
    "second",
  ]);
});
