/**
 * Realistic session files of a chosen size for the session-file curve (issue 26, curve 3),
 * written through the real session writer (`openSession` / `Session.append*`), so the lines are
 * exactly what replio writes: turns of mixed tool calls (reads, greps, listings, commands, edits,
 * writes) with permissions and results, and a compaction whenever the history kept since the
 * last one passes what the default compaction threshold allows (0.8 × 128,000 tokens at about 4
 * characters a token), as the engine would have compacted it.
 *
 *     deno run -A bench/scale_session_fixture.ts WORKTREE ID MEGABYTES
 * @module
 */
import { Config } from "../src/config/mod.ts";
import type { ToolCall } from "../src/providers/types.ts";
import { openSession, type Session } from "../src/session/mod.ts";

/** Characters of history at which the engine's default settings compact (0.8 × 128k × 4). */
const COMPACT_AT_CHARS = 0.8 * 128_000 * 4;

/** A small deterministic generator (mulberry32): the same seed gives the same file. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ("parser token stream buffer config session history result module export " +
  "function const return await async import value error retry compact worktree policy " +
  "registry schema record append line offset limit").split(" ");

/** Source-like lines (with a non-ASCII character now and then, as real files have). */
function sourceLines(next: () => number, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
    const indent = "  ".repeat(Math.floor(next() * 4));
    const accent = next() < 0.02 ? " // déjà vu — 100 µs" : "";
    lines.push(`${indent}${word()} ${word()}_${i} = ${word()}(${word()}, ${i});${accent}`);
  }
  return lines.join("\n");
}

interface CallPlan {
  name: string;
  args: Record<string, unknown>;
  output: string;
  permission: "read" | "list" | "edit" | "bash";
}

/** One tool call of a mixed session, its arguments and a result of a realistic size. */
function planCall(next: () => number, turn: number, round: number): CallPlan {
  const file = `src/${WORDS[(turn + round) % WORDS.length]}_${turn % 97}.ts`;
  switch (Math.floor(next() * 6)) {
    case 0: {
      const lines = 60 + Math.floor(next() * 200);
      return {
        name: "file_read",
        args: { path: file },
        output: `# ${file} - ${lines} lines\n${sourceLines(next, lines)}`,
        permission: "read",
      };
    }
    case 1: {
      const hits = 5 + Math.floor(next() * 40);
      const text = Array.from(
        { length: hits },
        (_, i) =>
          `src/${WORDS[i % WORDS.length]}.ts:${10 + i * 7}:  const ${
            WORDS[(i * 3) % WORDS.length]
          } = parse(line);`,
      ).join("\n");
      return {
        name: "grep",
        args: { pattern: "parse\\(", path: "src" },
        output: text,
        permission: "read",
      };
    }
    case 2:
      return {
        name: "list_dir",
        args: { path: "src" },
        output: WORDS.map((w, i) => `${w}_${i}.ts  ${1000 + i * 37} B`).join("\n"),
        permission: "list",
      };
    case 3: {
      const lines = 20 + Math.floor(next() * 300);
      return {
        name: "run_command",
        args: { command: "deno test -A src/" },
        output: `exit 0\n${
          Array.from({ length: lines }, (_, i) =>
            `ok ${i} - ${WORDS[i % WORDS.length]} handles case ${i} ... ok (${i % 17} ms)`)
            .join("\n")
        }\n\nok | ${lines} passed | 0 failed`,
        permission: "bash",
      };
    }
    case 4: {
      const content = sourceLines(next, 40 + Math.floor(next() * 120));
      return {
        name: "file_write",
        args: { path: file, content },
        output: `Wrote ${file} (${content.length} chars)`,
        permission: "edit",
      };
    }
    default: {
      const old = sourceLines(next, 3);
      return {
        name: "file_edit",
        args: { path: file, old_string: old, new_string: old.replace("=", "= await") },
        output: `Edited ${file}: 1 replacement`,
        permission: "edit",
      };
    }
  }
}

/** Appends one turn of 3 to 8 rounds; returns the characters it added to the history. */
function appendTurn(session: Session, next: () => number, turn: number): number {
  let chars = 0;
  const prompt = `Turn ${turn}: fix the ${WORDS[turn % WORDS.length]} handling in src/ and ` +
    "run the tests until they pass.";
  session.beginTurn(prompt);
  session.appendMessage({ role: "user", content: prompt });
  chars += prompt.length;
  const rounds = 3 + Math.floor(next() * 6);
  for (let round = 1; round <= rounds; round++) {
    const plan = planCall(next, turn, round);
    const call: ToolCall = {
      id: `call_${turn}_${round}`,
      type: "function",
      function: { name: plan.name, arguments: JSON.stringify(plan.args) },
    };
    const reasoning = `I need to ${plan.name.replace("_", " ")} next. `.repeat(
      1 + Math.floor(next() * 6),
    );
    session.appendMessage({ role: "assistant", content: null, reasoning, tool_calls: [call] });
    session.appendPermission({
      tool: plan.name,
      permission: plan.permission,
      action: "allow",
      decision: "granted",
      reason: `tool_permission.${plan.permission}`,
      call_id: call.id,
      ts: new Date().toISOString(),
    });
    session.appendMessage({
      role: "tool",
      tool_call_id: call.id,
      name: plan.name,
      content: plan.output,
    });
    chars += call.function.arguments.length + plan.output.length + reasoning.length;
  }
  const answer = `Done: the ${WORDS[turn % WORDS.length]} handling is fixed and the tests ` +
    "pass. ".repeat(1 + Math.floor(next() * 8));
  session.appendMessage({ role: "assistant", content: answer });
  session.endTurn("ok", {
    prompt_tokens: 20_000 + turn,
    completion_tokens: 400,
    total_tokens: 20_400 + turn,
  });
  return chars + answer.length;
}

/** What {@link writeSessionFile} wrote. */
export interface WrittenSession {
  path: string;
  bytes: number;
  turns: number;
  compactions: number;
}

/**
 * Writes session `id` of `worktree` until its file holds at least `bytes`, compacting as the
 * engine's defaults would.
 */
export async function writeSessionFile(
  worktree: string,
  id: string,
  bytes: number,
): Promise<WrittenSession> {
  const next = random(26);
  using session = await openSession(worktree, {
    config: Config.defaults(),
    id,
    model: "mock-model",
  });
  let turn = 0;
  let compactions = 0;
  let sinceCompaction = 0;
  let written = 0;
  while (written < bytes) {
    turn++;
    sinceCompaction += appendTurn(session, next, turn);
    if (sinceCompaction > COMPACT_AT_CHARS) {
      // The engine keeps the last two user turns; this turn's messages stand in for them.
      session.appendCompaction(
        `- Goal: keep src/ working across ${turn} turns.\n` +
          "- Files changed: src/parser.ts, src/session.ts (fixed retry handling).\n" +
          "- Tests: all passing after the last edit.\n".repeat(8),
        8,
      );
      compactions++;
      sinceCompaction = 0;
    }
    written = (await Deno.stat(session.path)).size;
  }
  return {
    path: session.path,
    bytes: (await Deno.stat(session.path)).size,
    turns: turn,
    compactions,
  };
}

if (import.meta.main) {
  const [worktree, id, megabytes] = Deno.args;
  if (!worktree || !id || !megabytes || !(Number(megabytes) > 0)) {
    throw new TypeError(
      "Cannot write a session file: usage: scale_session_fixture.ts WORKTREE ID MEGABYTES",
    );
  }
  const written = await writeSessionFile(worktree, id, Number(megabytes) * 1024 * 1024);
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(written) + "\n"));
}
