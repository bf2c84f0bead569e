/**
 * Compaction inside one long turn (issue #26): a model that calls tools round after round gets
 * its older rounds summarised, its request kept verbatim and its latest rounds kept whole, so
 * requests stay bounded; a resume rebuilds the same history; a provider without token counts
 * still compacts; a failed summary loses nothing.
 * @module
 */
import assert from "node:assert/strict";
import { KEPT_ROUNDS } from "../src/engine/fold_plan.ts";
import type { ChatMessage } from "../src/providers/types.ts";
import { loadSession, SUMMARY_PREFIX, summaryMessage } from "../src/session/mod.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { withDeadline } from "./support/deadline.ts";
import { type MockModel, type MockTurn, startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { RecordingSink, tempWorktree } from "./support/worktree.ts";

const PROMPT = "Read every note in notes/, one a round, then say you are done.";
/** Characters of each note: four rounds of them pass the smallest context window's limit. */
const NOTE_CHARS = 1_200;

/** `notes/n01.txt` …: names, ids and contents of one length, so requests compare by size. */
function notes(count: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let k = 1; k <= count; k++) {
    files[notePath(k)] = `note ${pad(k)}\n${"x".repeat(NOTE_CHARS)}\n`;
  }
  return files;
}

const pad = (k: number) => String(k).padStart(2, "0");
const notePath = (k: number) => `notes/n${pad(k)}.txt`;
const callId = (k: number) => `call_round_${pad(k)}`;

/** Round `k`: the model reads note `k`. */
function readRound(k: number, usage: NonNullable<MockTurn["usage"]>): MockTurn {
  return {
    toolCalls: [{ name: "file_read", arguments: { path: notePath(k) }, id: callId(k) }],
    usage,
  };
}

const summaryText = (n: number) => `- Summary number ${n}: notes read so far, all as expected.`;

/** The chat requests (streamed), without the summary requests (one-off, not streamed). */
const chats = (mock: MockModel) => mock.requests.filter((r) => r.stream === true);
const summaries = (mock: MockModel) => mock.requests.filter((r) => r.stream !== true);

/** The ids of the tool results a request carries, in order. */
function resultIds(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id] : []));
}

/** Roles, with each assistant's call ids and each result's id: the shape of a history. */
function shape(messages: ChatMessage[]): string[] {
  return messages.map((m) =>
    m.role === "assistant"
      ? `assistant ${(m.tool_calls ?? []).map((c) => c.id).join(",")}`
      : m.role === "tool"
      ? `tool ${m.tool_call_id}`
      : m.role
  );
}

/** A history of the summary, the prompt and the rounds `from`..`to`. */
function keptShape(from: number, to: number): string[] {
  const rounds = [];
  for (let k = from; k <= to; k++) rounds.push(`assistant ${callId(k)}`, `tool ${callId(k)}`);
  return ["user", "user", ...rounds];
}

Deno.test("replio run compacts inside one long turn, keeps requests bounded and --continue rebuilds the same history", async () => {
  /** Rounds of the turn, and every how many the reported prompt passes the limit. */
  const ROUNDS = 28;
  const EVERY = 5;
  await using wt = await tempWorktree({
    ...notes(ROUNDS),
    // The history itself stays far below 0.8 × 100,000 tokens: only the reported counts below
    // pass it, so the compactions come exactly where the script says.
    ".xdg/replio/config.yaml": "context_window: 100000\ncompact_threshold: 0.8\n",
  });
  const script: MockTurn[] = [];
  for (let k = 1; k <= ROUNDS; k++) {
    script.push(readRound(k, { prompt_tokens: k % EVERY === 0 ? 90_000 : 1_000 }));
    if (k % EVERY === 0) script.push({ text: summaryText(k / EVERY) });
  }
  script.push({ text: "All notes read.", usage: { prompt_tokens: 1_000 } });
  await using mock = startMockModel(script);
  const run = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", PROMPT],
    { cwd: wt.path },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "All notes read.\n");
  assert.deepEqual(mock.violations, []);
  assert.equal(mock.remaining, 0);
  const compactions = Math.floor(ROUNDS / EVERY);
  assert.equal(summaries(mock).length, compactions);

  // After the first compaction the request is the summary, the prompt verbatim, then only the
  // last KEPT_ROUNDS rounds, each tool result right after its call.
  const after = chats(mock)[EVERY]!.messages;
  assert.deepEqual(after.slice(1, 3), [summaryMessage(summaryText(1)), {
    role: "user",
    content: PROMPT,
  }]);
  assert.deepEqual(shape(after.slice(1)), keptShape(EVERY - KEPT_ROUNDS + 1, EVERY));
  // The summariser is told the request stays, and sees the rounds it folds, not the kept ones.
  const first = summaries(mock)[0]!.messages;
  assert.match(String(first[0]!.content), /current request is kept verbatim/);
  assert.match(String(first[1]!.content), new RegExp(`n0${EVERY - KEPT_ROUNDS}\\.txt`));
  assert.doesNotMatch(String(first[1]!.content), new RegExp(`n0${EVERY}\\.txt`));
  assert.ok(!String(first[1]!.content).includes(PROMPT));
  // The next summary folds the last one in: nothing learnt is dropped.
  assert.match(String(summaries(mock)[1]!.messages[1]!.content), /Summary number 1/);

  // Bounded: no request after the first compaction holds more than the kept rounds and the
  // rounds until the next compaction, and the last stretch's requests are no larger than the
  // second's (same-sized notes, ids and summaries). Without compaction the last request would
  // hold all 28 rounds.
  const later = chats(mock).slice(EVERY);
  for (const request of later) {
    assert.ok(resultIds(request.messages).length <= KEPT_ROUNDS + EVERY - 1);
  }
  const size = (i: number) => JSON.stringify(chats(mock)[i]!).length;
  const stretch = (n: number) =>
    Math.max(
      ...Array.from({ length: EVERY }, (_, j) => n * EVERY + j).filter((i) =>
        i < chats(mock).length
      ).map(size),
    );
  assert.ok(stretch(compactions) <= stretch(2), `${stretch(compactions)} > ${stretch(2)}`);

  const [id] = (JSON.parse(
    (await runReplio(["sessions", "list", "--json"], { cwd: wt.path })).stdout,
  ) as { id: string }[]).map((s) => s.id);
  const loaded = await loadSession(wt.path, id!);
  const records = loaded.records.filter((r) => r.type === "compaction");
  assert.equal(records.length, compactions);
  assert.ok(records.every((r) => r.type === "compaction" && r.keeps_prompt === true));
  assert.equal(loaded.messages.length, 1 + 2 * ROUNDS + 1);

  // --continue rebuilds the history the live turn ended with.
  mock.push({ text: "Note 28 came last." });
  const again = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "--continue", "Which came last?"],
    { cwd: wt.path },
  );
  assert.equal(again.code, 0, again.stderr);
  const live = chats(mock).at(-2)!.messages.slice(1);
  const resumed = chats(mock).at(-1)!.messages.slice(1);
  assert.deepEqual(resumed, [
    ...live,
    { role: "assistant", content: "All notes read." },
    { role: "user", content: "Which came last?" },
  ]);
  assert.deepEqual(mock.violations, []);
});

/**
 * Six reads and an answer, no token counts reported: in a window of 1,024 tokens the history's
 * size alone passes 0.8 × 1,024 from round 5 on, when there are rounds beyond the kept ones to
 * fold, so the turn compacts three times (rounds 5 and 6, and its end).
 */
function unreportedScript(): MockTurn[] {
  const none = false as const;
  return [
    ...[1, 2, 3, 4, 5].map((k) => readRound(k, none)),
    { text: summaryText(1) },
    readRound(6, none),
    { text: summaryText(2) },
    { text: "Done.", usage: none },
    // The turn's end: the final answer is a round too, so one more is folded.
    { text: summaryText(3) },
  ];
}

Deno.test("Agent.runTurn compacts inside a turn when the provider reports no token counts", async () => {
  await using wt = await tempWorktree(notes(6));
  await using mock = startMockModel(unreportedScript());
  const sink = new RecordingSink();
  using t = await startTestAgent(wt.path, mock, { config: { context_window: 1024 }, sink });
  const result = await t.agent.runTurn(PROMPT, new AbortController().signal);
  assert.equal(result.status, "ok");
  assert.deepEqual(mock.violations, []);
  assert.equal(mock.remaining, 0);
  assert.deepEqual(shape(chats(mock)[5]!.messages.slice(1)), keptShape(2, 5));
  assert.deepEqual(shape(chats(mock)[6]!.messages.slice(1)), keptShape(3, 6));
  const notes_ = sink.events.flatMap((e) => (e.type === "note" ? [e.message] : []));
  assert.equal(notes_.length, 3);
  assert.match(
    notes_[0]!,
    /^context compacted: \d+ prompt tokens \(estimated from its size\) passed 819: kept the request and its last 4 rounds$/,
  );
  // What a resume reads from the file is what the live agent holds.
  const loaded = await loadSession(wt.path, t.session.id);
  assert.deepEqual(loaded.history, t.agent.history);
  assert.deepEqual(t.agent.history.slice(0, 2), [summaryMessage(summaryText(3)), {
    role: "user",
    content: PROMPT,
  }]);
});

Deno.test("Agent.runTurn goes on uncompacted when the summary request fails, and tries again later", async () => {
  await using wt = await tempWorktree(notes(9));
  const none = false as const;
  await using mock = startMockModel([
    ...[1, 2, 3, 4, 5].map((k) => readRound(k, none)),
    { fault: "500" },
    ...[6, 7, 8, 9].map((k) => readRound(k, none)),
    { text: summaryText(1) },
    { text: "Done.", usage: none },
    { text: summaryText(2) },
  ]);
  const sink = new RecordingSink();
  using t = await startTestAgent(wt.path, mock, { config: { context_window: 1024 }, sink });
  const result = await t.agent.runTurn(PROMPT, new AbortController().signal);
  assert.equal(result.status, "ok");
  assert.equal(mock.remaining, 0);
  assert.deepEqual(mock.violations, []);
  const notes_ = sink.events.flatMap((e) => (e.type === "note" ? [e.message] : []));
  assert.match(
    notes_[0]!,
    /^context not compacted: the summary request failed: .*HTTP 500.*: the turn goes on with its whole history, and compaction is tried again in 4 rounds$/,
  );
  // The rounds after the failure carry the whole history; the next attempt comes 4 rounds on.
  for (const k of [6, 7, 8, 9]) {
    assert.deepEqual(resultIds(chats(mock)[k - 1]!.messages), ids(1, k - 1));
  }
  assert.deepEqual(shape(chats(mock)[9]!.messages.slice(1)), keptShape(6, 9));
  // The failed attempt wrote nothing: the two records are the two that succeeded.
  const loaded = await loadSession(wt.path, t.session.id);
  assert.deepEqual(
    loaded.records.flatMap((r) => (r.type === "compaction" ? [r.summary] : [])),
    [summaryText(1), summaryText(2)],
  );
  assert.deepEqual(loaded.history, t.agent.history);
});

Deno.test("Agent.runTurn cancelled during the summary request keeps every message and writes no compaction", async () => {
  await using wt = await tempWorktree(notes(5));
  const none = false as const;
  await using mock = startMockModel([
    ...[1, 2, 3, 4, 5].map((k) => readRound(k, none)),
    { fault: "hang" },
  ]);
  const sink = new RecordingSink();
  using t = await startTestAgent(wt.path, mock, { config: { context_window: 1024 }, sink });
  const controller = new AbortController();
  const turn = t.agent.runTurn(PROMPT, controller.signal);
  await withDeadline(
    (async () => {
      for (let i = 0;; i++) if ((await mock.waitForExchange(i)).body?.stream === false) return;
    })(),
    "the summary request",
  );
  controller.abort();
  const result = await turn;
  assert.equal(result.status, "cancelled");
  assert.equal(summaries(mock).length, 1);
  assert.equal(chats(mock).length, 5);
  const loaded = await loadSession(wt.path, t.session.id);
  assert.equal(loaded.records.filter((r) => r.type === "compaction").length, 0);
  assert.deepEqual(resultIds(loaded.history), ids(1, 5));
  assert.equal(loaded.history[0]!.content, PROMPT);
  assert.ok(!loaded.history.some((m) => m.role === "user" && m.content.startsWith(SUMMARY_PREFIX)));
  assert.ok(
    sink.events.some((e) =>
      e.type === "note" && e.message.startsWith(
        "context not compacted: the summary request " +
          "failed: it was cancelled",
      )
    ),
  );
});

function ids(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => callId(from + i));
}

Deno.test("a compaction inside a turn has its folded rounds collected (gc() with --expose-gc)", async () => {
  // A stand-in for V8's gc(), counting the collections asked for; the start task exposes the
  // real one. The control is the same turn with a window too large to compact: none asked for.
  const global = globalThis as { gc?: () => void };
  const realGc = global.gc;
  let collections = 0;
  global.gc = () => collections++;
  try {
    const run = async (contextWindow: number, script: MockTurn[]) => {
      collections = 0;
      await using wt = await tempWorktree(notes(6));
      await using mock = startMockModel(script);
      using t = await startTestAgent(wt.path, mock, { config: { context_window: contextWindow } });
      assert.equal((await t.agent.runTurn(PROMPT, new AbortController().signal)).status, "ok");
      assert.equal(mock.remaining, 0);
      // The collection runs on a timer of its own, set before this one: timers of one delay fire
      // in the order they were set, however busy the machine.
      await new Promise((resolve) => setTimeout(resolve, 0));
      return collections;
    };
    assert.equal(await run(1024, unreportedScript()), 3);
    // The control: the same reads in a window they never fill, with no summaries to serve.
    const reads = unreportedScript().filter((turn) => !("text" in turn) || turn.text === "Done.");
    assert.equal(await run(1_000_000, reads), 0);
  } finally {
    if (realGc) global.gc = realGc;
    else delete global.gc;
  }
});
