/**
 * The soak's scripted model: what the mock answers for each REPL turn. Turns go in a cycle of
 * four that together call every kind of tool a REPL session runs without a person: reads and
 * searches, writes and edits, commands, git, a kept output paged with tool_output, a refused
 * web_fetch, a sub-agent, a commit the person confirms, and a compaction at the end of each
 * cycle. Each turn ends with its own sentence, so the driver knows which turn the screen shows as
 * done.
 * @module
 */
import type { MockTurn } from "../tests/support/mock_model.ts";

/** Turns per cycle; the last of each cycle ends with a compaction. */
export const CYCLE_TURNS = 4;
/** A reply's prompt size that passes the default compact threshold (0.8 of 128,000 tokens). */
const OVER_THRESHOLD_TOKENS = 110_000;
/** Below it: every other reply reports this, so compaction comes only where the script says. */
const USAGE = { prompt_tokens: 2_000, completion_tokens: 50, total_tokens: 2_050 };
/** Lines the command prints: more than a result shows, so the output is kept for tool_output. */
const KEPT_LINES = 3_000;

/** The files the soak's worktree starts with. */
export const SOAK_FILES: Record<string, string> = {
  "README.md": "# Soak\n\nA project the soak test edits, hello.\n",
  "src/app.ts": "export const count = 0;\n",
  "notes.txt": "turn 0\n",
};

/** The sentence turn `n` ends with. */
export function finishedLine(n: number): string {
  return `Finished turn ${n}.`;
}

/**
 * What the REPL asks the person during turn `n`, to be answered "y", or null: git_commit always
 * confirms, so the soak answers as a person at the keyboard would.
 */
export function confirmationIn(n: number): string | null {
  return (n - 1) % CYCLE_TURNS === 2 ? `Allow → Commit ${commitMessage(n)}` : null;
}

function commitMessage(n: number): string {
  return `Soak turn ${n}`;
}

/** The mock's replies for turn `n` (1-based), in request order. */
export function soakTurn(n: number): MockTurn[] {
  const done = (extra: Partial<MockTurn> = {}): MockTurn => ({
    text: `${finishedLine(n)} Everything went as planned.`,
    usage: USAGE,
    ...extra,
  });
  const calls = (...toolCalls: MockTurn["toolCalls"] & object): MockTurn => ({
    toolCalls,
    usage: USAGE,
  });
  const cycle = Math.ceil(n / CYCLE_TURNS);
  switch ((n - 1) % CYCLE_TURNS) {
    case 0:
      return [
        {
          thinking: "Read the project before changing it.",
          text: "Looking around first.",
          ...calls(
            { name: "file_read", arguments: { path: "README.md" } },
            { name: "list_dir", arguments: { path: "." } },
            { name: "glob", arguments: { pattern: "**/*.ts" } },
            { name: "grep", arguments: { pattern: "hello" } },
          ),
        },
        done(),
      ];
    case 1:
      return [
        calls(
          { name: "file_write", arguments: { path: "notes.txt", content: `turn ${n}\n` } },
          {
            name: "file_edit",
            arguments: {
              path: "src/app.ts",
              old: `count = ${cycle - 1};`,
              new: `count = ${cycle};`,
            },
          },
        ),
        done(),
      ];
    case 2:
      return [
        calls(
          { name: "run_command", arguments: { command: `seq 1 ${KEPT_LINES}` } },
          { name: "git", arguments: { subcommand: "status", args: ["--short"] } },
          { name: "code_test", arguments: {} },
          { name: "web_fetch", arguments: { url: "http://127.0.0.1:9/refused" } },
        ),
        calls(
          // Each command takes the next output number (code_test's short one is not kept):
          // run_command's is o1, o3, o5, …
          { name: "tool_output", arguments: { id: `o${2 * cycle - 1}`, offset: 1_000, limit: 20 } },
          { name: "git_commit", arguments: { message: commitMessage(n), all: true } },
        ),
        done(),
      ];
    default:
      return [
        calls({
          name: "delegate",
          arguments: { agent_type: "explore", task: "Say what notes.txt holds" },
        }),
        // The sub-agent's one reply.
        { text: `notes.txt holds "turn ${n - 2}".`, usage: USAGE },
        done({ usage: { ...USAGE, prompt_tokens: OVER_THRESHOLD_TOKENS } }),
        // The compaction's summary request.
        { text: `- The soak ran ${n} turns; notes.txt and src/app.ts change each cycle.` },
      ];
  }
}
