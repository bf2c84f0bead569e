/**
 * Keys of the REPL in a real terminal (tmux, issue #25): the confirm prompt answered with one
 * key (y, n, a, e, t; Enter takes the default N), a key that does not apply explained and asked
 * again, the confirm and trust questions wrapped at word boundaries at 40 columns, Shift+Tab
 * cycling the mode, and what a person reads of a blocked edit and of a long command's output.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists } from "./support/exists.ts";
import { sessionRecords, setup, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

/** The tool message the model got in its `request`-th chat request. */
function toolResultOf(
  mock: { requests: { messages: { role: string; content: unknown }[] }[] },
  request: number,
): string {
  return String(mock.requests[request]!.messages.findLast((m) => m.role === "tool")?.content);
}

Deno.test("repl confirm: y alone runs the call, no Enter needed", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch made_by_y" } }] },
    { text: "Made it." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("[y/N]");
  await repl.keys("y");
  await repl.waitFor("Made it.");
  assert.equal(await exists(join(env.wt.path, "made_by_y")), true);
});

Deno.test("repl confirm: Enter alone takes the default, no", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch made_by_enter" } }] },
    { text: "Not made." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("[y/N]");
  await repl.keys("Enter");
  const screen = await repl.waitFor("Not made.");
  assert.match(screen, /✗ Not run: you declined\n/);
  assert.equal(await exists(join(env.wt.path, "made_by_enter")), false);
});

Deno.test("repl confirm: t declines and the model is told the reason typed", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch made_by_t" } }] },
    { text: "Understood, not today." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("t tell why)");
  await repl.keys("t");
  await repl.waitFor("why (the model is told):");
  await repl.enter("not on a Friday");
  const screen = await repl.waitFor("Understood, not today.");
  assert.match(screen, /✗ Not run: you declined; the model was told why: "not on a Friday"/);
  assert.equal(await exists(join(env.wt.path, "made_by_t")), false);
  assert.equal(
    toolResultOf(env.mock, 1),
    "Error: the user declined to run run_command (not on a Friday): do not retry it; take another approach",
  );
  const audit = (await sessionRecords(env.wt.path)).filter((r) => r.type === "permission");
  assert.deepEqual(audit.map((r) => [r.decision, r.reason]), [
    ["declined", 'tool_permission.bash; declined by the user ("not on a Friday")'],
  ]);
});

Deno.test("repl confirm: 'a' where no rule fits says why and asks again; y then runs it", async () => {
  await using outside = await tempWorktree({ "far.txt": "far away\n" });
  await using env = await setup([
    { toolCalls: [{ name: "file_read", arguments: { path: join(outside.path, "far.txt") } }] },
    { text: "Read it." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("read the far file");
  await repl.waitFor("(outside worktree) [y/N] (t tell why)");
  await repl.keys("a");
  await repl.waitFor(
    'a: no "always" rule fits this call: a call outside the worktree asks every time; press y',
  );
  // Asked again: the prompt a second time, and the call not answered yet.
  const again = await repl.waitFor(/it once\n {2}\(outside worktree\) \[y\/N\] \(t tell why\)\s*$/);
  assert.ok(!again.includes("Not run"), again);
  await repl.keys("y");
  await repl.waitFor("Read it.");
  assert.match(toolResultOf(env.mock, 1), /far away/);
});

Deno.test("repl at 40 columns wraps the confirm prompt and the trust question at word boundaries", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "ls -a" } }] },
    { text: "Listed." },
  ]);
  await env.wt.write(".replio/config.yaml", "tool_permission:\n  bash: allow\n");
  await using repl = await TmuxRepl.start(env.wt.path, env.args, {
    width: 40,
    noColor: true,
    ready: "continue without",
  });
  await repl.waitFor(/\[N\]o, continue without\s*$/, "the trust question's answer line");
  await repl.keys("n", "Enter");
  await repl.waitForPrompt();
  await repl.enter("list");
  await repl.waitFor("[y/N]");
  // The raw screen keeps the terminal's own line ends: a word cut by the terminal would show.
  const raw = (await repl.screen(true)).split("\n").map((line) => line.trimEnd());
  for (const line of raw) assert.ok(line.length <= 40, `a line longer than the terminal: ${line}`);
  const words = raw.join(" ").split(/\s+/);
  for (const word of ["(tool_permission.bash)", "tool_permission.bash", "trusted"]) {
    assert.ok(
      words.some((w) => w.includes(word)),
      `"${word}" is whole on one line:\n${raw.join("\n")}`,
    );
  }
  await repl.keys("y");
  await repl.waitFor("Listed.");
});

Deno.test("repl Shift+Tab cycles the modes: the prompt shows each and the policy follows", async () => {
  await using env = await setup([]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args, { noColor: true });
  await repl.keys("BTab");
  await repl.waitFor(
    "Mode plan: Read and plan only: no file edits, no commands (Shift+Tab: next mode)",
  );
  await repl.waitFor(/\nplan >\s*$/, "the plan prompt");
  // The attack: in plan mode the write is blocked, and its diff is marked as not applied.
  await repl.enter('/tool file_write {"path":"planned.txt","content":"hi"}');
  const blocked = await repl.waitFor("! Not applied: mode plan");
  assert.match(
    blocked.replace(/\n +/g, " "),
    /! Not applied: mode plan does not allow file_write: switch modes with \/mode or Shift\+Tab to allow it/,
  );
  assert.equal(await exists(join(env.wt.path, "planned.txt")), false);
  await repl.waitForPrompt();
  await repl.keys("BTab");
  await repl.waitFor(/\naccept-edits >\s*$/, "the accept-edits prompt");
  // The control: the same write, one Shift+Tab later, runs.
  await repl.enter('/tool file_write {"path":"planned.txt","content":"hi"}');
  await repl.waitFor(/Write planned\.txt[\s\S]*Write planned\.txt[\s\S]*\naccept-edits >\s*$/);
  assert.equal(await env.wt.read("planned.txt"), "hi");
  await repl.keys("BTab");
  await repl.waitFor(/\nsandboxed >\s*$/, "the sandboxed prompt");
  await repl.keys("BTab");
  const back = await repl.waitFor(/Mode default: [^\n]*\n>\s*$/, "the default prompt again");
  assert.ok(back.includes("Mode sandboxed: Commands run without asking"), back);
  // A half-typed message survives the switch.
  await repl.type("half typed");
  await repl.keys("BTab");
  await repl.waitFor(/\nplan > half typed\s*$/, "the typed text on the new prompt");
});

Deno.test("repl counts a long command's output, not the cut result, and names the kept output", async () => {
  await using wt = await tempWorktree();
  await wt.write(".replio/config.yaml", "tool_permission:\n  bash: allow\n");
  await using repl = await TmuxRepl.start(wt.path, ["--trust"]);
  await repl.enter('/tool run_command {"command":"seq 1 20000"}');
  // "exit 0" and lines 1 to 19 are shown: 19,981 of the command's 20,000 lines are left.
  const screen = await repl.waitFor("… 19,981 more lines (full output kept as o1: /output o1)");
  assert.match(screen, /\n {2}exit 0\n {2}1\n[\s\S]*\n {2}19\n {2}… 19,981/);
  assert.doesNotMatch(screen, /tool_output\(/, "the model's note is not shown to the person");
  await repl.enter("/output o1 20000");
  await repl.waitFor(/o1: lines [\d,]+–20,000 of 20,000 \(end\)/);
  await repl.keys("q");
  await repl.waitForPrompt();
});
