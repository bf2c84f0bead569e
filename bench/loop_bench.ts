/**
 * Tool-loop overhead per round and whole-process peak memory of a 40-round headless run.
 *
 * Overhead: the real Agent (provider, policy, registry, session file) runs scripted
 * read/grep/list/shell/write/edit rounds against the mock model in this process; the time
 * spent inside tools is subtracted. The reference is a bare loop in the same process that
 * replays the very request bodies the agent sent (same system prompt, tool schemas and
 * history) with `fetch` and parses the SSE replies: what any loop must pay for serialising the
 * history, the HTTP round trip and the mock. Overhead = agent − bare, per round.
 *
 * Memory: `replio run --yes` as a child process doing 40 rounds against the same mock, peak
 * RSS from /proc/<pid>/status VmHWM (polled; the value is a high-water mark).
 *
 * Run: `deno run -A bench/loop_bench.ts` (writes bench/results/loop.md).
 * @module
 */
import { join } from "node:path";
import { type MockTurn, startMockModel } from "../tests/support/mock_model.ts";
import { startTestAgent } from "../tests/support/agent_harness.ts";
import { RecordingSink, tempWorktree } from "../tests/support/worktree.ts";

const ROUNDS = 40;
const REPEATS = 5;

const ROUND_SCRIPT: MockTurn[] = [
  { text: "Reading.", toolCalls: [{ name: "file_read", arguments: { path: "src/app.ts" } }] },
  { toolCalls: [{ name: "grep", arguments: { pattern: "port", path: "src" } }] },
  { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { toolCalls: [{ name: "run_command", arguments: { command: "true" } }] },
  { toolCalls: [{ name: "file_write", arguments: { path: "out.txt", content: "a\nb\n" } }] },
  { toolCalls: [{ name: "file_edit", arguments: { path: "out.txt", old: "a", new: "c" } }] },
];

/** `ROUNDS` tool rounds (the six kinds in turn), then one answer. */
function script(): MockTurn[] {
  const turns = Array.from(
    { length: ROUNDS },
    (_, i) => structuredClone(ROUND_SCRIPT[i % ROUND_SCRIPT.length]!),
  );
  return [...turns, { text: "All done." }];
}

const FILES = {
  "src/app.ts": "export const port = 8080;\n".repeat(50),
  "README.md": "# bench\n",
};

interface AgentRun {
  perRoundMs: number;
  toolMsPerRound: number;
  /** What the agent sent, for the bare loop to replay. */
  bodies: unknown[];
}

async function agentRun(): Promise<AgentRun> {
  await using wt = await tempWorktree(FILES);
  await using mock = startMockModel(script());
  const sink = new RecordingSink();
  const started = new Map<string, number>();
  let toolMs = 0;
  const emit = sink.emit.bind(sink);
  sink.emit = (event) => {
    if (event.type === "tool_call") started.set(event.id, performance.now());
    if (event.type === "tool_result") {
      toolMs += performance.now() - (started.get(event.id) ?? performance.now());
    }
    emit(event);
  };
  using t = await startTestAgent(wt.path, mock, {
    headless: "yes",
    sink,
    maxRounds: ROUNDS + 5,
    config: { "tool_permission.bash": "allow" },
  });
  const t0 = performance.now();
  const result = await t.agent.runTurn("do the work", new AbortController().signal);
  const total = performance.now() - t0;
  if (result.status !== "ok" || mock.violations.length) {
    throw new Error(`bench run failed: ${result.status}`);
  }
  return {
    perRoundMs: (total - toolMs) / result.rounds,
    toolMsPerRound: toolMs / result.rounds,
    bodies: structuredClone(mock.requests),
  };
}

/** The reference: the agent's own request bodies replayed, replies parsed, nothing else. */
async function bareRun(bodies: unknown[]): Promise<number> {
  await using mock = startMockModel(script());
  const t0 = performance.now();
  for (const body of bodies) {
    const response = await fetch(`${mock.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const calls = new Map<number, { id: string; name: string; args: string }>();
    for (const line of (await response.text()).split("\n")) {
      if (!line.startsWith("data: {")) continue;
      for (const c of JSON.parse(line.slice(6)).choices?.[0]?.delta?.tool_calls ?? []) {
        const entry = calls.get(c.index) ?? { id: "", name: "", args: "" };
        entry.args += c.function?.arguments ?? "";
        calls.set(c.index, entry);
      }
    }
    for (const c of calls.values()) JSON.parse(c.args || "{}");
  }
  return (performance.now() - t0) / bodies.length;
}

async function peakRssOfHeadlessRun(): Promise<{ peakMb: number; code: number }> {
  await using wt = await tempWorktree(FILES);
  await using mock = startMockModel(script());
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "-A",
      join(import.meta.dirname!, "..", "main.ts"),
      "run",
      "--yes",
      "--base-url",
      mock.baseUrl,
      "--model",
      "mock-model",
      "--max-rounds",
      String(ROUNDS + 5),
      "do the work",
    ],
    cwd: wt.path,
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  let peakKb = 0;
  const poll = setInterval(() => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      const kb = Number(status.match(/VmHWM:\s+(\d+)/)?.[1] ?? 0);
      peakKb = Math.max(peakKb, kb);
    } catch {
      // The child exited between polls: its last high-water mark is already recorded.
    }
  }, 10);
  const { code } = await child.status;
  clearInterval(poll);
  return { peakMb: peakKb / 1024, code };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

if (import.meta.main) {
  await bareRun((await agentRun()).bodies); // warm-up: JIT, module loading
  const agent: number[] = [];
  const tools: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const a = await agentRun();
    agent.push(a.perRoundMs);
    tools.push(a.toolMsPerRound);
    bare.push(await bareRun(a.bodies));
  }
  const memory = await peakRssOfHeadlessRun();
  const agentMs = median(agent);
  const bareMs = median(bare);
  const report = `# Tool loop benchmark

Command: \`deno run -A bench/loop_bench.ts\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${
    new Date().toISOString().slice(0, 10)
  }). ${ROUNDS} scripted rounds (file_read, grep, list_dir, run_command, file_write, file_edit in
turn) and one answer against the mock model on 127.0.0.1; medians of ${REPEATS} runs after a warm-up.

| measure | ms per round |
|---|---|
| agent round, tool time excluded | ${agentMs.toFixed(2)} |
| bare loop replaying the same requests (fetch + SSE parse) | ${bareMs.toFixed(2)} |
| **loop overhead** (agent − bare) | **${(agentMs - bareMs).toFixed(2)}** |
| tool time (for reference) | ${median(tools).toFixed(2)} |

Target: overhead under 5 ms per round (Codex CLI ~61 ms, Claude Code 45 ms, Gemini CLI 31 ms,
opencode 377 ms on these machines).

Whole-process peak RSS of \`replio run --yes\` doing the same ${ROUNDS} rounds: **${
    memory.peakMb.toFixed(1)
  } MB**
(exit ${memory.code}; target under 120 MB; Codex 171 MB, Claude Code 295 MB).
`;
  await Deno.writeTextFile(new URL("./results/loop.md", import.meta.url), report);
  await Deno.stdout.write(new TextEncoder().encode(report));
}
