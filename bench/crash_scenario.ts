/**
 * The crash test's scenario: a worktree and one scripted `replio run` turn that streams, runs a
 * command, and writes a large file (so its undo checkpoint and its atomic write each take
 * milliseconds), a new file and an edit. The crash harness (bench/crash_trial.ts) kills the run
 * somewhere in it; this module only says what the files are before and after.
 * @module
 */
import { dirname, join } from "node:path";
import type { MockTurn } from "../tests/support/mock_model.ts";

/** The files the turn's file tools change: relative path → content before and after the turn. */
export interface ScenarioFile {
  path: string;
  /** null: the file does not exist before the turn. */
  before: string | null;
  after: string;
}

/** A worktree prepared for one trial, and the turn to run in it. */
export interface Scenario {
  files: ScenarioFile[];
  /** The model's replies for the killed turn, in order. */
  turns: MockTurn[];
  /** Lines the command prints, one every {@link TICK_SECONDS}: the "mid-tool" window. */
  commandTicks: number;
}

/** The large file: its checkpoint copy and its write each take milliseconds at this size. */
export const BIG_FILE = "big.txt";
const TICK_SECONDS = 0.02;
const STREAM_PIECES = 30;

/** The scenario with a big file of about `bigBytes` bytes. */
export function crashScenario(bigBytes: number): Scenario {
  const line = (tag: string, n: number) =>
    `${tag} line ${String(n).padStart(8, "0")} ${"x".repeat(40)}\n`;
  const lines = Math.max(1, Math.round(bigBytes / line("old", 0).length));
  const body = Array.from({ length: lines - 1 }, (_, n) => line("same", n)).join("");
  const files: ScenarioFile[] = [
    // One line changes: file_write's preview diffs old and new, which costs time quadratic in
    // the changed lines (a 1 MB file rewritten whole took about a minute).
    { path: BIG_FILE, before: body + line("old", lines), after: body + line("new", lines) },
    { path: "notes/new.txt", before: null, after: "A file the turn creates.\n" },
    {
      path: "src/app.ts",
      before: 'export const greeting = "hello";\n',
      after: 'export const greeting = "goodbye";\n',
    },
  ];
  const commandTicks = 10;
  const turns: MockTurn[] = [
    {
      thinking: "Look at the app first, then change it.",
      text: "I will read the app, run the checks, then write the files. ".repeat(2),
      chunkSize: Math.ceil(120 / STREAM_PIECES),
      delayMs: 2,
      toolCalls: [
        { name: "file_read", arguments: { path: "src/app.ts" } },
        { name: "list_dir", arguments: { path: "." } },
        { name: "grep", arguments: { pattern: "greeting" } },
      ],
    },
    {
      toolCalls: [{
        name: "run_command",
        arguments: {
          command:
            `for i in $(seq 1 ${commandTicks}); do echo tick $i; sleep ${TICK_SECONDS}; done`,
        },
      }],
    },
    {
      // Big arguments travel in big pieces: the stream is not what this round measures.
      chunkSize: 1 << 20,
      toolCalls: [
        { name: "file_write", arguments: { path: BIG_FILE, content: files[0]!.after } },
        { name: "file_write", arguments: { path: files[1]!.path, content: files[1]!.after } },
        { name: "file_edit", arguments: { path: "src/app.ts", old: '"hello"', new: '"goodbye"' } },
      ],
    },
    { text: "All three files are written.", delayMs: 2 },
  ];
  return { files, turns, commandTicks };
}

/** Writes the scenario's files as they are before the turn. */
export async function writeBefore(worktree: string, scenario: Scenario): Promise<void> {
  for (const file of scenario.files) {
    if (file.before === null) continue;
    await Deno.mkdir(dirname(join(worktree, file.path)), { recursive: true });
    await Deno.writeTextFile(join(worktree, file.path), file.before);
  }
}
