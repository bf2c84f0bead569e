/**
 * A cut result, end to end: a root agent wired as `replio run` wires one keeps a long command
 * output in its session's folder, and the model reads the part it did not see with tool_output.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockModel } from "./support/mock_model.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { tempWorktree } from "./support/worktree.ts";

Deno.test("the model reads the lines a cut command output left out with tool_output", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "run_command", arguments: { command: "seq 1 1000" } }] },
    { toolCalls: [{ name: "tool_output", arguments: { id: "o1", pattern: "^777$" } }] },
    { text: "Line 777 says 777." },
  ]);
  using t = await startTestAgent(wt.path, mock, {
    headless: "yes",
    config: { "tool_permission.bash": "allow" },
  });
  const result = await t.agent.runTurn("find line 777", new AbortController().signal);
  assert.equal(result.status, "ok");
  const [run, read] = result.tool_calls;
  assert.match(
    run!.output,
    /\n… 800 lines \(of 1,000 lines, 3\.9 KB in all\) omitted, lines 101–900: read them with tool_output\(id="o1", offset=101\) or grep them with tool_output\(id="o1", pattern="FAIL"\)\n901\n/,
  );
  assert.equal(read!.output, 'o1: 1 of 1,000 lines match "^777$"\n777: 777');
  const kept = join(wt.path, ".replio", "sessions", t.session.id, "outputs", "o1.txt");
  assert.equal(
    await Deno.readTextFile(kept),
    Array.from({ length: 1000 }, (_, i) => `${i + 1}\n`).join(""),
  );
  assert.deepEqual(mock.violations, []);
});
