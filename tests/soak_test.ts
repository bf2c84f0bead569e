/**
 * The soak (issue #23), the short version of `deno task soak`: the same REPL session in tmux,
 * 60 turns of every kind of tool call with a compaction every four turns. Memory is judged by
 * the heap data the REPL retains after a full collection (read through `--inspect`), which does
 * not depend on when the collector ran or on the machine's speed, as the resident size does.
 */
import assert from "node:assert/strict";
import { CYCLE_TURNS } from "../bench/soak_script.ts";
import { runSoak } from "../bench/soak_session.ts";

const TURNS = 60;
/** Measured after the first cycles, when every code path has run once. */
const FROM_TURN = 20;
/**
 * Growth allowed over the 40 turns measured: 12.8 kB a turn. A REPL that kept each turn's
 * messages would pass it; one holding its tool outputs or requests would not. Measured: about
 * 1 kB a turn.
 */
const MAX_GROWTH_KB = 512;

Deno.test("a 60-turn REPL session with every kind of tool call keeps its retained heap flat", async () => {
  const soak = await runSoak({ turns: TURNS, inspectAt: [FROM_TURN, TURNS] });
  assert.deepEqual(soak.violations, []);
  assert.equal(soak.compactions, TURNS / CYCLE_TURNS);
  const cycles = TURNS / CYCLE_TURNS;
  assert.deepEqual(soak.toolCalls, {
    file_read: cycles,
    list_dir: cycles,
    glob: cycles,
    grep: cycles,
    file_write: cycles,
    file_edit: cycles,
    run_command: cycles,
    git: cycles,
    code_test: cycles,
    web_fetch: cycles,
    tool_output: cycles,
    git_commit: cycles,
    delegate: cycles,
  });
  // web_fetch's refusals of a loopback address are on purpose, and kept out of the file as
  // noise_tools results: no tool failed.
  assert.deepEqual(soak.toolErrors, {});
  const from = soak.retainedKb.get(FROM_TURN)!;
  const to = soak.retainedKb.get(TURNS)!;
  assert.ok(
    to - from <= MAX_GROWTH_KB,
    `the retained heap grew ${to - from} kB from turn ${FROM_TURN} (${from} kB) to turn ${TURNS}`,
  );
});
