/**
 * delegate and ask against the scripted mock model: parent and child conversations share one
 * mock, whose requests arrive in the order parent → child → … → parent.
 */
import assert from "node:assert/strict";
import { loadSession } from "../src/session/mod.ts";
import { startMockModel } from "./support/mock_model.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { RecordingSink, tempWorktree } from "./support/worktree.ts";

const signal = () => new AbortController().signal;

Deno.test("delegate runs an explore sub-agent that reads files and returns its answer", async () => {
  await using wt = await tempWorktree({ "src/app.ts": "export const port = 8080;\n" });
  await using mock = startMockModel([
    {
      toolCalls: [{
        name: "delegate",
        arguments: { agent_type: "explore", task: "find the port" },
      }],
    },
    { toolCalls: [{ name: "file_read", arguments: { path: "src/app.ts" } }] },
    { text: "The port is 8080 (src/app.ts:1)." },
    { text: "It listens on 8080." },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("which port?", signal());
  assert.equal(result.status, "ok");
  const output = result.tool_calls[0]!.output;
  assert.match(
    output,
    /^The port is 8080 \(src\/app\.ts:1\)\.\n\n\[sub_explore_\w+: explore, ok, [\d.]+s, \d+ tokens, 2 rounds\]$/,
  );
  // The child saw only its task and the explore tool set.
  const child = mock.requests[1]!;
  assert.equal(child.messages.at(-1)!.content, "find the port");
  const childTools = (child.tools ?? []).map((x) =>
    (x as { function: { name: string } }).function.name
  );
  assert.ok(childTools.includes("file_read"));
  assert.ok(!childTools.includes("file_write") && !childTools.includes("delegate"));
  // The parent's session links the child's, which has its own file with its parent named.
  const parent = await loadSession(wt.path, t.session.id);
  const link = parent.records.find((r) => r.type === "subagent");
  assert.ok(link && link.type === "subagent");
  const childSession = await loadSession(wt.path, link.session);
  assert.equal(childSession.header?.parent, t.session.id);
  assert.equal(childSession.header?.agent_type, "explore");
  assert.deepEqual(childSession.permissions.map((p) => p.tool), ["file_read"]);
  assert.deepEqual(mock.violations, []);
});

Deno.test("delegate to an unregistered agent type is denied", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "delegate", arguments: { agent_type: "wizard", task: "do magic" } }] },
    { text: "ok" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("go", signal());
  assert.equal(
    result.tool_calls[0]!.output,
    'Error: delegate is denied by policy (agent type "wizard" is not registered): do not retry it; use another tool or approach',
  );
  assert.equal(mock.requests.length, 2);
});

Deno.test("delegate to a configured type asks first and is denied headless", async () => {
  await using wt = await tempWorktree({
    ".replio/agents/reviewer.md": "---\ndescription: Reviews code\n---\nYou review code.\n",
  });
  await using mock = startMockModel([
    { toolCalls: [{ name: "delegate", arguments: { agent_type: "reviewer", task: "review" } }] },
    { text: "could not" },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("review", signal());
  assert.deepEqual(result.permissions.map((p) => [p.action, p.decision]), [["ask", "denied"]]);
  assert.match(result.tool_calls[0]!.output, /agent reviewer: tool_permission\.delegate/);
});

Deno.test("delegate: a child type that allows bash cannot run bash under a parent that denies it", async () => {
  await using wt = await tempWorktree({
    ".replio/agents/basher.md":
      "---\ndescription: Runs commands\ntool_permission:\n  bash: allow\n  delegate: allow\n---\nYou run commands.\n",
  });
  await using mock = startMockModel([
    {
      toolCalls: [{
        name: "delegate",
        arguments: { agent_type: "basher", task: "touch a marker" },
      }],
    },
    { toolCalls: [{ name: "run_command", arguments: { command: "touch marker" } }] },
    { text: "I was not allowed." },
    { text: "The sub-agent could not run it." },
  ]);
  using t = await startTestAgent(wt.path, mock, {
    config: { "tool_permission.bash": "deny" },
    headless: "yes",
  });
  const result = await t.agent.runTurn("make a marker via a sub-agent", signal());
  assert.equal(result.status, "ok");
  const childTools = (mock.requests[1]!.tools ?? []).map((x) =>
    (x as { function: { name: string } }).function.name
  );
  assert.ok(!childTools.includes("run_command"));
  const childToolResult = mock.requests[2]!.messages.at(-1)!;
  assert.match(
    String(childToolResult.content),
    /^Error: run_command is denied by policy \(tool_permission\.bash\)/,
  );
  await assert.rejects(Deno.stat(`${wt.path}/marker`), Deno.errors.NotFound);
  assert.deepEqual(mock.violations, []);
});

Deno.test("delegate stops at max_delegate_depth", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "delegate", arguments: { agent_type: "general", task: "level 1" } }] },
    { toolCalls: [{ name: "delegate", arguments: { agent_type: "general", task: "level 2" } }] },
    { text: "could not go deeper" },
    { text: "done" },
  ]);
  using t = await startTestAgent(wt.path, mock, { config: { max_delegate_depth: 1 } });
  const result = await t.agent.runTurn("nest", signal());
  assert.equal(result.status, "ok");
  const childToolResult = mock.requests[2]!.messages.at(-1)!;
  assert.match(
    String(childToolResult.content),
    /^Error: delegate is denied by policy \(max_delegate_depth\)/,
  );
  assert.equal(mock.requests.length, 4);
});

Deno.test("ask with target lead from a sub-agent is answered by the parent's model", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    {
      toolCalls: [{
        name: "delegate",
        arguments: { agent_type: "general", task: "set up storage" },
      }],
    },
    {
      toolCalls: [{
        name: "ask",
        arguments: { question: "Which database?", options: ["postgres", "sqlite"], target: "lead" },
      }],
    },
    { text: "Use sqlite." },
    { text: "Chose sqlite as the lead said." },
    { text: "Storage is set up with sqlite." },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("set up storage", signal());
  assert.equal(result.status, "ok");
  const consult = mock.requests[2]!;
  assert.equal(consult.stream, false);
  const asked = consult.messages.map((m) => m.content).join("\n");
  assert.match(asked, /Question: Which database\?/);
  assert.match(asked, /Options: postgres \| sqlite/);
  assert.match(asked, /Task you delegated: set up storage/);
  assert.equal(mock.requests[3]!.messages.at(-1)!.content, "Use sqlite.");
  assert.deepEqual(mock.violations, []);
});

Deno.test("ask from a headless root agent with target lead falls back to no one", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "ask", arguments: { question: "Proceed?", target: "lead" } }] },
    { text: "Proceeding on my own." },
  ]);
  using t = await startTestAgent(wt.path, mock);
  const result = await t.agent.runTurn("go", signal());
  assert.match(result.tool_calls[0]!.output, /^Error: ask has no one to answer/);
  const loaded = await loadSession(wt.path, t.session.id);
  assert.deepEqual(loaded.permissions.map((p) => p.tool), ["ask"]);
});

Deno.test("delegate: cancelling the parent cancels the running sub-agent", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    {
      toolCalls: [{ name: "delegate", arguments: { agent_type: "explore", task: "look around" } }],
    },
    { text: "the child starts and then hangs", fault: "hang", faultAfter: 2 },
  ]);
  const controller = new AbortController();
  const sink = new RecordingSink();
  using t = await startTestAgent(wt.path, mock, { sink });
  const turn = t.agent.runTurn("explore", controller.signal);
  await mock.waitForExchange(1);
  controller.abort();
  const result = await turn;
  assert.equal(result.status, "cancelled");
  assert.match(result.tool_calls[0]!.output, /cancelled/);
  assert.equal(await mock.waitForEnd(1), "client_closed");
  const link = (await loadSession(wt.path, t.session.id)).records.find((r) =>
    r.type === "subagent"
  );
  assert.ok(link && link.type === "subagent");
  const child = await loadSession(wt.path, link.session);
  const end = child.records.at(-1)!;
  assert.ok(end.type === "turn_end" && end.status === "cancelled");
  assert.deepEqual(mock.violations, []);
});
