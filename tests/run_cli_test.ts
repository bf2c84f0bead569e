/**
 * `replio run` as a user runs it: a child process against the mock model server, each output
 * format, stdin prompts, exit codes, signals, and a `kill -9` mid-turn followed by a resume.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSession } from "../src/session/mod.ts";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { replioCommand, runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
}

function mockArgs(mock: MockModel | null): string[] {
  return mock ? ["--base-url", mock.baseUrl, "--model", "mock-model"] : [];
}

function replioRun(cwd: string, mock: MockModel | null, args: string[], options: RunOptions = {}) {
  return replioCommand(["run", ...mockArgs(mock), ...args], { cwd, ...options });
}

function replio(cwd: string, mock: MockModel | null, args: string[], options: RunOptions = {}) {
  return runReplio(["run", ...mockArgs(mock), ...args], { cwd, ...options });
}

Deno.test("replio run --output text prints the answer on stdout and activity on stderr", async () => {
  await using wt = await tempWorktree({ "README.md": "# Demo\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }] },
    { text: "It is a demo." },
  ]);
  const ran = await replio(wt.path, mock, ["what is this?"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, "It is a demo.\n");
  assert.match(ran.stderr, /← Read README\.md/);
  assert.deepEqual(mock.violations, []);
});

Deno.test("replio run --output json prints one TurnResult", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    {
      toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }],
      usage: { prompt_tokens: 7, completion_tokens: 3 },
    },
    { text: "done", usage: { prompt_tokens: 11, completion_tokens: 2 } },
  ]);
  const ran = await replio(wt.path, mock, ["--output", "json", "read a.txt"]);
  assert.equal(ran.code, 0, ran.stderr);
  const result = JSON.parse(ran.stdout);
  assert.deepEqual(Object.keys(result).sort(), [
    "content",
    "duration_ms",
    "errors",
    "model",
    "permissions",
    "rounds",
    "session",
    "status",
    "thinking",
    "tool_calls",
    "usage",
  ]);
  assert.equal(result.status, "ok");
  assert.equal(result.content, "done");
  assert.equal(result.model, "mock-model");
  assert.deepEqual(result.usage, { prompt_tokens: 18, completion_tokens: 5, total_tokens: 23 });
  assert.equal(result.tool_calls[0].name, "file_read");
  assert.equal(result.permissions[0].decision, "granted");
  assert.match(result.session, /^ses_\d{8}_\d{6}_[a-z0-9]{6}$/);
});

Deno.test("replio run --output stream-json prints one event per line, every call answered", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { thinking: "hmm", toolCalls: [{ name: "run_command", arguments: { command: "echo hi" } }] },
    { text: "ran it" },
  ]);
  const ran = await replio(wt.path, mock, ["--output", "stream-json", "run echo"]);
  const events = ran.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const types = events.map((e) => e.type);
  assert.equal(types[0], "session");
  assert.equal(types.at(-1), "turn_end");
  assert.ok(types.includes("thinking"));
  const call = events.find((e) => e.type === "tool_call");
  assert.deepEqual(call, {
    type: "tool_call",
    id: call.id,
    name: "run_command",
    arguments: { command: "echo hi" },
    isolation: call.isolation,
  });
  // How the call was to run: in the OS sandbox where bwrap works (docs/sandbox.md), else none.
  assert.match(call.isolation, /^(bwrap\(net=off, write=worktree\)|none)$/);
  const permission = events.find((e) => e.type === "permission");
  assert.equal(permission.decision, "denied");
  const results = events.filter((e) => e.type === "tool_result");
  assert.equal(results.length, 1);
  assert.equal(results[0].id, call.id);
  // Denied, so nothing ran.
  assert.equal(results[0].isolation, "none");
  assert.equal(ran.code, 0);
});

Deno.test("replio run reads the prompt from stdin when no argument is given", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "got it" }]);
  const ran = await replio(wt.path, mock, [], { stdin: "from stdin\n" });
  assert.equal(ran.stdout, "got it\n");
  assert.equal(mock.requests[0]!.messages.at(-1)!.content, "from stdin\n");
});

Deno.test("replio run exits 1 at --max-rounds and 2 without a reachable model", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  const call = { toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] };
  await using mock = startMockModel([call, call]);
  const ran = await replio(wt.path, mock, ["--max-rounds", "2", "loop"]);
  assert.equal(ran.code, 1);
  assert.match(ran.stderr, /\(max_rounds\)/);
  const none = await replio(wt.path, null, ["hi"], { env: { OPENAI_BASE_URL: "" } });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /base_url|--base-url|OPENAI_BASE_URL/);
});

Deno.test("replio run exits 130 on SIGINT and saves the partial answer", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{
    text: "partial words then silence",
    fault: "hang",
    faultAfter: 4,
  }]);
  const child = replioRun(wt.path, mock, ["--session", "ses_sigint", "hi"]).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.ok(first.value && first.value.length > 0);
  child.kill("SIGINT");
  reader.releaseLock();
  const out = await child.output();
  assert.equal(out.code, 130);
  const loaded = await loadSession(wt.path, "ses_sigint");
  assert.equal(loaded.messages.at(-1)!.role, "assistant");
  assert.equal(loaded.records.at(-1)!.type, "turn_end");
});

Deno.test("replio run killed with SIGKILL mid-turn leaves a session that --session resumes", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] },
    { text: "half an answer", fault: "hang", faultAfter: 3 },
    { text: "resumed fine" },
  ]);
  const child = replioRun(wt.path, mock, ["--session", "ses_killed", "read a.txt"]).spawn();
  const reader = child.stdout.getReader();
  await reader.read(); // the second round is streaming: the first round's messages are on disk
  child.kill("SIGKILL");
  reader.releaseLock();
  await child.output();
  const file = join(wt.path, ".replio", "sessions", "ses_killed.jsonl");
  const lines = (await Deno.readTextFile(file)).split("\n").filter(Boolean);
  for (const line of lines) JSON.parse(line);
  const resumed = await replio(wt.path, mock, ["--session", "ses_killed", "go on"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, "resumed fine\n");
  const history = mock.requests[2]!.messages.map((m) => m.role);
  assert.deepEqual(history, ["system", "user", "assistant", "tool", "user"]);
  assert.deepEqual(mock.violations, []);
});
