/**
 * Crash consistency (issue #23), the short version of `deno task crash`: the same harness kills
 * `replio run` with SIGKILL at seeded random moments in each step of a turn (stream, command,
 * the session record of a large write, its checkpoint, its atomic write), then resumes the
 * session and undoes the turn, checking each time that the session parses, that every event the
 * run showed is recorded, that no file is half-written and that /undo restores the turn.
 */
import assert from "node:assert/strict";
import type { SessionRecord } from "../src/session/records.ts";
import type { Sink, TurnEvent } from "../src/ui/events.ts";
import { AIMS } from "../bench/crash_aim.ts";
import { checkEventsRecorded } from "../bench/crash_checks.ts";
import type { SeenEvent } from "../bench/crash_run.ts";
import { crashScenario } from "../bench/crash_scenario.ts";
import { calibrate, runTrial } from "../bench/crash_trial.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { startMockModel } from "./support/mock_model.ts";
import { seededRandom } from "./support/seeded_random.ts";
import { tempWorktree } from "./support/worktree.ts";

/** Two kills per aim: each step of the turn is hit, in about half a minute. */
const KILLS = 2 * AIMS.length;
/** Large enough that the checkpoint copy and the write each take several reads of its size. */
const BIG_BYTES = 2 * 1024 * 1024;

Deno.test("replio run killed at random moments leaves sessions that parse and hold what it showed, whole files, and a turn /undo restores", async () => {
  const given = Deno.env.get("REPLIO_CRASH_SEED");
  const seed = given === undefined ? Date.now() % 2 ** 31 : Number(given);
  const scenario = crashScenario(BIG_BYTES);
  const calibration = await calibrate(scenario);
  const random = seededRandom(seed);
  const failures: string[] = [];
  let killed = 0;
  for (let i = 0; i < KILLS; i++) {
    const aim = AIMS[i % AIMS.length]!;
    const result = await runTrial(scenario, calibration, aim, random());
    if (!result.landing.startsWith("after the turn")) killed++;
    for (const violation of result.violations) {
      failures.push(`kill ${i + 1} (aimed ${aim}, landed ${result.landing}): ${violation}`);
    }
  }
  assert.deepEqual(failures, [], `seed ${seed}: run again with REPLIO_CRASH_SEED=${seed}`);
  assert.ok(killed > 0, `no run was killed (seed ${seed}): the trials checked nothing`);
});

Deno.test("every event a turn shows is already in the session file when the sink gets it", async () => {
  await using wt = await tempWorktree({ "a.txt": "one\n" });
  await using mock = startMockModel([
    // A read, a command the headless "no" declines, and a write.
    {
      toolCalls: [
        { name: "file_read", arguments: { path: "a.txt" } },
        { name: "run_command", arguments: { command: "touch declined" } },
        { name: "file_write", arguments: { path: "b.txt", content: "two\n" } },
      ],
    },
    { text: "Done." },
    // The server fails: an error event, then the turn's end.
    { fault: "500" },
    // Cancelled at the first call: the second gets its result without running.
    {
      toolCalls: [
        { name: "file_read", arguments: { path: "a.txt" } },
        { name: "file_read", arguments: { path: "b.txt" } },
      ],
    },
  ]);
  const seen: SeenEvent[] = [];
  const late: string[] = [];
  let sessionPath = "";
  let cancel = new AbortController();
  let cancelAtCall = false;
  const sink: Sink = {
    emit(event: TurnEvent) {
      seen.push({ at: 0, event: event as unknown as Record<string, unknown> });
      // What a kill right now would leave: the file as it is when the event is shown.
      late.push(...checkEventsRecorded(seen, recordsIn(sessionPath)));
      if (cancelAtCall && event.type === "tool_call") cancel.abort();
    },
    confirm: () => Promise.resolve("no"),
    ask: () => Promise.resolve(null),
  };
  using agent = await startTestAgent(wt.path, mock, { sink, config: { max_retries: 0 } });
  sessionPath = agent.session.path;
  for (const prompt of ["work", "fail", "stop"]) {
    cancel = new AbortController();
    cancelAtCall = prompt === "stop";
    await agent.agent.runTurn(prompt, cancel.signal);
  }
  assert.deepEqual(late, []);
  // The turns showed every kind of event the check covers, so it checked something.
  const types = new Set(seen.map((s) => s.event.type));
  for (const type of ["tool_call", "permission", "tool_result", "error", "turn_end"]) {
    assert.ok(types.has(type), `no ${type} event was shown`);
  }
  const skipped = seen.filter((s) =>
    s.event.type === "tool_result" && String(s.event.output).includes("cancelled by the user")
  );
  assert.ok(skipped.length >= 1, "the cancelled turn skipped its second call");
});

/** The whole records of a session file, read as a crash would leave them. */
function recordsIn(path: string): SessionRecord[] {
  const text = Deno.readTextFileSync(path);
  return text.split("\n").slice(0, -1).map((line) => JSON.parse(line) as SessionRecord);
}
