/**
 * One crash trial: `replio run` does the scenario's turn against the scripted mock model and is
 * killed with SIGKILL at a chosen moment; then the session is resumed (`run --continue`) and the
 * turn undone (`/undo` in the REPL, stdin piped), and every check of bench/crash_checks.ts runs
 * on what is left after each step. Where the kill landed is read from what it left behind.
 * @module
 */
import { join } from "node:path";
import { loadSession } from "../src/session/load_session.ts";
import type { SessionRecord } from "../src/session/records.ts";
import { type MockModel, startMockModel } from "../tests/support/mock_model.ts";
import { runReplio } from "../tests/support/replio_process.ts";
import { tempWorktree } from "../tests/support/worktree.ts";
import {
  checkEventsRecorded,
  checkFilesWhole,
  checkSessionParses,
  cutLineNumber,
  worktreeState,
} from "./crash_checks.ts";
import { type Aim, aimKill, type Calibration, measureSpans } from "./crash_aim.ts";
import { StreamedRun } from "./crash_run.ts";
import { type Scenario, writeBefore } from "./crash_scenario.ts";

/** What one trial found. */
export interface TrialResult {
  aim: Aim;
  /** Where the kill landed, read from what it left (see {@link landingOf}). */
  landing: string;
  /** Broken checks, one sentence each; empty when every check held. */
  violations: string[];
  /** The kill cut the session's last line. */
  cutLine: boolean;
  /** Temporary files of an atomic write left in the worktree by the kill, and after the resume. */
  tempsAfterKill: number;
  tempsAfterResume: number;
  /** What `/undo` answered. */
  undo: "restored" | "nothing to undo" | "no session";
}

/** How long a trial waits for something it needs before it fails naming it. */
const DEADLINE_MS = 60_000;
const CHAT = "/v1/chat/completions";

/** Runs the scenario to its end, twice, checks it, and measures the spans the aims need. */
export async function calibrate(scenario: Scenario): Promise<Calibration> {
  const spans: Calibration[] = [];
  for (let i = 0; i < 2; i++) {
    await using wt = await tempWorktree();
    await writeBefore(wt.path, scenario);
    await using mock = startMockModel(scenario.turns);
    const run = new StreamedRun(runArgs(mock, "write the files"), wt.path);
    const end = await withDeadline(run.finish(), "the calibration run to exit");
    const state = await worktreeState(wt.path, scenario.files);
    const notDone = [...state.states].filter(([, s]) => s !== "after").map(([path]) => path);
    if (end.code !== 0 || notDone.length || mock.violations.length) {
      throw new Error(
        `Cannot calibrate: the uninterrupted run ended with exit ${end.code}, files not written: ` +
          `${notDone.join(", ") || "none"}, mock violations: ${mock.violations.join("; ")}\n` +
          end.stderr,
      );
    }
    spans.push(measureSpans(run.events));
  }
  return {
    deltas: Math.min(...spans.map((s) => s.deltas)),
    toolWindowMs: Math.max(...spans.map((s) => s.toolWindowMs)),
  };
}

/** One trial: kill at the moment `pick` (in [0, 1)) of `aim`'s span, then resume and undo. */
export async function runTrial(
  scenario: Scenario,
  calibration: Calibration,
  aim: Aim,
  pick: number,
): Promise<TrialResult> {
  await using wt = await tempWorktree();
  await writeBefore(wt.path, scenario);
  await using mock = startMockModel(scenario.turns);
  const run = new StreamedRun(runArgs(mock, "write the files"), wt.path);
  aimKill({ run, mock, worktree: wt.path, scenario, calibration, aim, pick });
  const end = await withDeadline(run.finish(), "the killed run to exit");

  const violations: string[] = [];
  const afterKill = await worktreeState(wt.path, scenario.files);
  violations.push(...checkFilesWhole(afterKill, scenario.files).map((p) => `after the kill: ${p}`));
  const id = run.events.find((s) => s.event.type === "session")?.event.id;
  const sessionPath = join(wt.path, ".replio", "sessions", `${id}.jsonl`);
  const result: TrialResult = {
    aim,
    landing: end.killed ? "before the session file" : "after the turn (it ended first)",
    violations,
    cutLine: false,
    tempsAfterKill: afterKill.temps.length,
    tempsAfterResume: afterKill.temps.length,
    undo: "no session",
  };
  if (typeof id !== "string" || !await exists(sessionPath)) return result;

  const cut = await cutLineNumber(sessionPath);
  violations.push(
    ...(await checkSessionParses(wt.path, id, false)).map((p) => `after the kill: ${p}`),
  );
  const { records } = await loadSession(wt.path, id);
  violations.push(...checkEventsRecorded(run.events, records));
  const atKill = await Deno.readFile(sessionPath);
  const checkpoint = join(wt.path, ".replio", "sessions", `${id}.checkpoints`, "turn-1");
  const hadCheckpoint = await exists(checkpoint);
  result.cutLine = cut !== null;
  if (end.killed) {
    result.landing = landingOf({
      temps: afterKill.temps.length,
      cut: cut !== null,
      checkpointOpen: await hasUnrecordedCopy(checkpoint),
      streamOpen: mock.exchanges.filter((e) => e.path === CHAT).length > assistantReplies(records),
      toolOpen: hasUnansweredCall(records),
    });
  }

  await using next = startMockModel([{ text: "Resumed after the crash." }]);
  const resumed = await runReplio(
    ["run", "--continue", "--yes", "--output", "stream-json", ...modelArgs(next), "go on"],
    { cwd: wt.path },
  );
  if (resumed.code !== 0) violations.push(`the resume exited ${resumed.code}: ${resumed.stderr}`);
  violations.push(...next.violations.map((v) => `the resumed request: ${v}`));
  // The resume may drop the line the kill cut, and nothing else of what was there.
  const whole = cut === null ? atKill : atKill.subarray(0, atKill.lastIndexOf(0x0a) + 1);
  if (!startsWith(await Deno.readFile(sessionPath), whole)) {
    violations.push("the resume changed lines written whole before the kill");
  }
  violations.push(
    ...(await checkSessionParses(wt.path, id, true)).map((p) => `after the resume: ${p}`),
  );
  const resumedState = await worktreeState(wt.path, scenario.files);
  result.tempsAfterResume = resumedState.temps.length;
  for (const temp of resumedState.temps) {
    violations.push(`after the resume: a killed write's temporary file is still there: ${temp}`);
  }

  // /undo through the REPL, as a person would type it; the REPL must not call the model.
  const undone = await runReplio(["--continue", ...modelArgs(next)], {
    cwd: wt.path,
    stdin: "/undo\n",
  });
  result.undo = undone.stdout.includes("Undid turn 1:") ? "restored" : "nothing to undo";
  if (undone.code !== 0) violations.push(`the REPL exited ${undone.code}: ${undone.stderr}`);
  const expected = hadCheckpoint ? "Undid turn 1:" : "Nothing to undo";
  if (!undone.stdout.includes(expected)) {
    violations.push(`/undo did not say "${expected}":\n${undone.stdout}${undone.stderr}`);
  }
  violations.push(...next.violations.map((v) => `after /undo: ${v}`));
  const afterUndo = await worktreeState(wt.path, scenario.files);
  for (const stray of [...afterUndo.temps, ...afterUndo.strays]) {
    violations.push(`after /undo: a file the turn did not have is there: ${stray}`);
  }
  for (const file of scenario.files) {
    const state = afterUndo.states.get(file.path);
    if (state !== (file.before === null ? "absent" : "before")) {
      violations.push(`after /undo: ${file.path} is ${state}, not as before the turn`);
    }
  }
  return result;
}

/** The model flags for a mock. */
function modelArgs(mock: MockModel): string[] {
  return ["--base-url", mock.baseUrl, "--model", "mock-model"];
}

function runArgs(mock: MockModel, prompt: string): string[] {
  return ["run", "--yes", "--output", "stream-json", ...modelArgs(mock), prompt];
}

/** Where a kill landed, from the first sign it left, most specific first. */
function landingOf(found: {
  temps: number;
  cut: boolean;
  checkpointOpen: boolean;
  streamOpen: boolean;
  toolOpen: boolean;
}): string {
  if (found.temps) return "mid-write";
  if (found.cut) return "mid-record";
  if (found.checkpointOpen) return "mid-checkpoint";
  if (found.streamOpen) return "mid-stream";
  if (found.toolOpen) return "mid-tool";
  return "between steps";
}

/** The model replies the session holds (one per request that completed). */
function assistantReplies(records: SessionRecord[]): number {
  return records.filter((r) => r.type === "message" && r.message.role === "assistant").length;
}

/** A recorded tool call without a recorded result: the kill came while it ran. */
function hasUnansweredCall(records: SessionRecord[]): boolean {
  const open = new Set<string>();
  for (const record of records) {
    if (record.type !== "message") continue;
    const message = record.message;
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) open.add(call.id);
    }
    if (message.role === "tool") open.delete(message.tool_call_id);
  }
  return open.size > 0;
}

/** A checkpoint folder with a copy its manifest does not list yet: the kill cut the save. */
async function hasUnrecordedCopy(dir: string): Promise<boolean> {
  if (!await exists(dir)) return false;
  const manifest = await Deno.readTextFile(join(dir, "manifest.jsonl")).catch(() => "");
  const listed = manifest.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line).copy as string | null];
    } catch {
      return [];
    }
  });
  const copies = (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.name.endsWith(".bak"));
  return copies.length === 0 && manifest === "" || copies.some((e) => !listed.includes(e.name));
}

function startsWith(whole: Uint8Array, prefix: Uint8Array): boolean {
  if (whole.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (whole[i] !== prefix[i]) return false;
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** `promise`, or a failure naming `what` when a hang keeps it past the deadline. */
async function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
