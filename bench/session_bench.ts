/**
 * Session store costs (docs/session.md): appending at turn 1,000 vs turn 10 (should be flat:
 * one open append handle, no re-reading), and the peak memory of a child process that resumes
 * (or loads for `sessions show`) a 1,000-turn session (target: under 100 MB).
 *
 *     deno run -A bench/session_bench.ts
 *
 * Prints a Markdown report and writes it to bench/results/session.md. Data lives under /tmp
 * and is removed afterwards.
 * @module
 */
import { join } from "node:path";
import { Config } from "../src/config/mod.ts";
import type { ChatMessage } from "../src/providers/types.ts";
import { loadSession, openSession, type Session } from "../src/session/mod.ts";

const TURNS = 1_000;
/** Turns timed at each end of the session; the median of these is reported. */
const SAMPLE_TURNS = 20;
const WARMUP_TURNS = 200;
const MEMORY_TARGET_MB = 100;
const SESSION_ID = "bench";
const RESULTS = new URL("./results/session.md", import.meta.url).pathname;
const COMMAND = "deno run -A bench/session_bench.ts";

/** One realistic turn: prompt, thinking, two tool calls with 4 KB results, answer: 9 records. */
function appendTurn(session: Session, turn: number): void {
  const now = new Date().toISOString();
  const prompt = `Turn ${turn}: look at src/module_${turn}.ts and explain the parser. `.repeat(3);
  session.beginTurn(prompt);
  session.appendMessage({ role: "user", content: prompt });
  const calls = [1, 2].map((n) => ({
    id: `call_${turn}_${n}`,
    type: "function" as const,
    function: { name: "file_read", arguments: JSON.stringify({ path: `src/m${turn}_${n}.ts` }) },
  }));
  session.appendMessage({
    role: "assistant",
    content: null,
    reasoning: "I should read both files before answering. ".repeat(10),
    tool_calls: calls,
  });
  for (const call of calls) {
    session.appendPermission({
      tool: "file_read",
      permission: "read",
      action: "allow",
      decision: "granted",
      reason: "tool_permission.read",
      path: JSON.parse(call.function.arguments).path,
      ts: now,
    });
    const content = `# ${call.id}.ts - 100 lines\n` +
      "export const value = compute(42);\n".repeat(120);
    session.appendMessage({ role: "tool", tool_call_id: call.id, name: "file_read", content });
  }
  const answer: ChatMessage = {
    role: "assistant",
    content: "The parser reads tokens one at a time and builds the tree bottom-up. ".repeat(12),
  };
  session.appendMessage(answer);
  session.endTurn("ok", { prompt_tokens: 4000 + turn, completion_tokens: 300, total_tokens: 4300 });
}

function mb(value: number): string {
  return `${value.toFixed(1)} MB`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Peak resident memory of this process in MB (VmHWM; current RSS where /proc is missing). */
function peakRssMb(): number {
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const kb = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1]);
    if (kb > 0) return kb / 1024;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return Deno.memoryUsage().rss / 1024 / 1024;
}

/** Child mode: resume, load, or only import, then report peak memory as JSON on stdout. */
async function runChild(mode: string, worktree: string): Promise<void> {
  const started = performance.now();
  let messages = 0;
  if (mode === "resume") {
    using session = await openSession(worktree, { config: Config.defaults(), id: SESSION_ID });
    messages = session.history().length;
  } else if (mode === "load") {
    messages = (await loadSession(worktree, SESSION_ID)).messages.length;
  }
  const ms = performance.now() - started;
  const peakMb = peakRssMb();
  // The child runs with --expose-gc: what stays after a full collection is what resume keeps.
  (globalThis as { gc?: () => void }).gc?.();
  const heapMb = Deno.memoryUsage().heapUsed / 1024 / 1024;
  const report = JSON.stringify({ mode, messages, ms, peakMb, heapMb });
  await Deno.stdout.write(new TextEncoder().encode(report + "\n"));
}

async function measureChild(
  mode: string,
  worktree: string,
): Promise<{ messages: number; ms: number; peakMb: number; heapMb: number }> {
  const script = new URL(import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", "--v8-flags=--expose-gc", script, mode, worktree],
  }).output();
  if (code !== 0) throw new Error(`Child "${mode}" failed: ${new TextDecoder().decode(stderr)}`);
  return JSON.parse(new TextDecoder().decode(stdout));
}

async function runBench(): Promise<string> {
  const worktree = await Deno.makeTempDir({ prefix: "replio_session_bench_" });
  try {
    // Warm the JIT on a throwaway session so turn 1 and turn 1,000 run the same machine code.
    const warmup = await openSession(worktree, { config: Config.defaults(), id: "warmup" });
    for (let turn = 1; turn <= WARMUP_TURNS; turn++) appendTurn(warmup, turn);
    warmup.close();
    const session = await openSession(worktree, { config: Config.defaults(), id: SESSION_ID });
    const turnMs: number[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      const started = performance.now();
      appendTurn(session, turn);
      turnMs.push(performance.now() - started);
    }
    session.close();
    const recordsPerTurn = 9;
    const early = median(turnMs.slice(0, SAMPLE_TURNS)) / recordsPerTurn * 1000;
    const late = median(turnMs.slice(-SAMPLE_TURNS)) / recordsPerTurn * 1000;
    const sizeMb = (await Deno.stat(join(worktree, ".replio", "sessions", `${SESSION_ID}.jsonl`)))
      .size / 1024 / 1024;

    const baseline = await measureChild("import", worktree);
    const resume = await measureChild("resume", worktree);
    const load = await measureChild("load", worktree);
    const verdict = resume.peakMb < MEMORY_TARGET_MB ? "meets" : "MISSES";
    return `# Session store benchmark

Command: \`${COMMAND}\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${
      new Date().toISOString().slice(0, 10)
    })

A ${TURNS}-turn session is written through \`openSession\` / \`Session.append*\`: each turn is
${recordsPerTurn} records (turn_start, user, assistant with thinking and 2 tool calls, 2
permissions, 2 tool results of ~4 KB, answer, turn_end), ${sizeMb.toFixed(1)} MB in all, after
${WARMUP_TURNS} warm-up turns into another session so both samples run JIT-compiled code.

## Append cost (median over ${SAMPLE_TURNS} turns)

| where | µs per record |
|---|---|
| turns 1-${SAMPLE_TURNS} | ${early.toFixed(1)} |
| turns ${TURNS - SAMPLE_TURNS + 1}-${TURNS} | ${late.toFixed(1)} |
| ratio late / early | ${(late / early).toFixed(2)} |

## Memory of a child process

Peak RSS is VmHWM; retained heap is V8's \`heapUsed\` after a forced full collection at the end.

| child | peak RSS | retained heap | time | messages |
|---|---|---|---|---|
| import only (baseline) | ${mb(baseline.peakMb)} | ${mb(baseline.heapMb)} | - | - |
| resume: \`openSession\` + \`history()\` | ${mb(resume.peakMb)} | ${mb(resume.heapMb)} | ${
      resume.ms.toFixed(0)
    } ms | ${resume.messages} |
| \`loadSession\` (what \`sessions show\` reads) | ${mb(load.peakMb)} | ${mb(load.heapMb)} | ${
      load.ms.toFixed(0)
    } ms | ${load.messages} |

Resume ${verdict} the ${MEMORY_TARGET_MB} MB target.

Notes. An append keeps one handle open and never reads the file, so its cost does not depend
on the turn; at ~10 µs per record the late/early ratio moves between about 0.8 and 1.3 from run
to run on a shared machine. Of the resume peak, the baseline row is the Deno runtime with the
config module loaded and the retained heap above baseline is the history itself; the rest is
parse garbage that V8 collects lazily (a bare loop that \`JSON.parse\`s the same lines and keeps
the objects peaked at about 88 MB when measured). Peaks vary by a few MB between runs.
`;
  } finally {
    await Deno.remove(worktree, { recursive: true });
  }
}

if (import.meta.main) {
  const [mode, worktree] = Deno.args;
  if (mode && worktree) {
    await runChild(mode, worktree);
  } else {
    const report = await runBench();
    await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
    await Deno.writeTextFile(RESULTS, report);
    await Deno.stdout.write(new TextEncoder().encode(report));
  }
}
