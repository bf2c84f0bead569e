/**
 * Where a crash trial's kill lands. Each aim names a step of the scenario and `pick` (in [0, 1))
 * a moment inside it, found by what the run does rather than by a clock: the k-th streamed
 * delta, a point in the command's run, or the moment a file being written has reached a given
 * share of its bytes (the session line holding the big file, its checkpoint copy, the temporary
 * file of its atomic write), seen by watching the file grow.
 * @module
 */
import { join } from "node:path";
import type { MockModel } from "../tests/support/mock_model.ts";
import type { SeenEvent, StreamedRun } from "./crash_run.ts";
import { BIG_FILE, type Scenario } from "./crash_scenario.ts";

/**
 * `stream`: at a text or thinking delta of a reply; `tool`: while the command runs; `record`:
 * while the session line holding the big file's content is written; `checkpoint`: while the big
 * file is copied for /undo; `write`: while its new version is written.
 */
export type Aim = "stream" | "tool" | "record" | "checkpoint" | "write";
/** Every aim, in the order trials take them. */
export const AIMS: readonly Aim[] = ["stream", "tool", "record", "checkpoint", "write"];

/** What an uninterrupted run of the scenario showed. */
export interface Calibration {
  /** Text and thinking events of the whole turn. */
  deltas: number;
  /** From the command's tool_call event to its tool_result. */
  toolWindowMs: number;
}

const CHAT = "/v1/chat/completions";
/** The name `writeFileAtomic` gives the big file's new version until it is renamed. */
const BIG_TEMP = new RegExp(`^\\.${BIG_FILE.replace(".", "\\.")}\\.[0-9a-f]{8}\\.tmp$`);

/** The spans of an uninterrupted run's events that the event-driven aims choose in. */
export function measureSpans(events: readonly SeenEvent[]): Calibration {
  const command = events.find((s) =>
    s.event.type === "tool_call" && s.event.name === "run_command"
  );
  const result = events.find((s) =>
    s.event.type === "tool_result" && s.event.id === command?.event.id
  );
  if (!command || !result) {
    throw new Error("Cannot calibrate: the run showed no command and result");
  }
  return { deltas: events.filter(isDelta).length, toolWindowMs: result.at - command.at };
}

/** Arms the kill of `run` (in `worktree`) for `aim` at `pick` of its span. */
export function aimKill(options: {
  run: StreamedRun;
  mock: MockModel;
  worktree: string;
  scenario: Scenario;
  calibration: Calibration;
  aim: Aim;
  pick: number;
}): void {
  const { run, mock, worktree, scenario, calibration, pick } = options;
  const big = scenario.files.find((file) => file.path === BIG_FILE)!;
  const share = (text: string) => 1 + Math.floor(pick * new TextEncoder().encode(text).length);
  const sessions = join(worktree, ".replio", "sessions");
  const sessionId = async () =>
    String((await run.waitFor((s) => s.event.type === "session")).event.id);
  switch (options.aim) {
    case "stream": {
      const k = 1 + Math.floor(pick * calibration.deltas);
      run.killWhen((seen, events) => isDelta(seen) && events.filter(isDelta).length === k);
      break;
    }
    case "tool":
      run.killWhen(
        (seen) => seen.event.type === "tool_call" && seen.event.name === "run_command",
        pick * calibration.toolWindowMs,
      );
      break;
    case "record":
      // Nothing is appended while the third reply streams: the next line is the big record.
      void chatRequestAt(mock, 3).then(async () => {
        const file = join(sessions, `${await sessionId()}.jsonl`);
        const before = (await Deno.stat(file)).size;
        await killWhenGrown(run, () => Promise.resolve(file), before + share(big.after));
      });
      break;
    case "checkpoint":
      // The big file is the turn's first saved path: its copy is 0.bak.
      void sessionId().then((id) =>
        killWhenGrown(
          run,
          () => Promise.resolve(join(sessions, `${id}.checkpoints`, "turn-1", "0.bak")),
          share(big.before ?? ""),
        )
      );
      break;
    case "write":
      void killWhenGrown(run, () => findTemp(worktree), share(big.after));
  }
}

/**
 * Kills `run` once the file `locate` finds has at least `bytes` bytes, watching it grow; stops
 * watching when the run has ended by itself first.
 */
async function killWhenGrown(
  run: StreamedRun,
  locate: () => Promise<string | null>,
  bytes: number,
): Promise<void> {
  // Every look is an awaited call: the mock and the event reader in this process go on between.
  while (!run.ended) {
    const path = await locate();
    const size = path === null ? -1 : (await Deno.stat(path).catch(() => null))?.size ?? -1;
    if (size >= bytes) return run.killAfter(0);
  }
}

/** The big file's temporary new version in the worktree, if it exists now. */
async function findTemp(worktree: string): Promise<string | null> {
  for await (const entry of Deno.readDir(worktree)) {
    if (BIG_TEMP.test(entry.name)) return join(worktree, entry.name);
  }
  return null;
}

/** Resolves when the `n`-th chat request has reached the mock. */
export async function chatRequestAt(mock: MockModel, n: number): Promise<void> {
  let seen = 0;
  for (let index = 0;; index++) {
    const exchange = await mock.waitForExchange(index);
    if (exchange.path === CHAT && ++seen === n) return;
  }
}

function isDelta(seen: SeenEvent): boolean {
  return seen.event.type === "text" || seen.event.type === "thinking";
}
