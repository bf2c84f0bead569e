/**
 * `replio policy test` over 1,000 recorded calls: a generated session file (reads, greps, edits
 * and commands with their audit records) re-resolved under the worktree's policy, in process.
 * The reference in the same run is reading the same calls without resolving them.
 *
 * Run: `deno run -A bench/policy_test_bench.ts` (writes bench/results/policy_test.md).
 * Target: under 1 s.
 * @module
 */
import { join } from "node:path";
import { openWorkspace } from "../src/cli/workspace.ts";
import { testPolicy } from "../src/cli/policy.ts";
import { readRecordedCalls } from "../src/session/mod.ts";

const CALLS = 1000;
const RUNS = 5;
const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_policy_bench_" }));
const file = join(worktree, "ses_bench.jsonl");
const kinds = [
  ["file_read", "read", "allow", { path: "src/a.ts" }],
  ["grep", "read", "allow", { pattern: "TODO" }],
  ["file_edit", "edit", "allow", { path: "src/a.ts", old_string: "a", new_string: "b" }],
  ["run_command", "bash", "ask", { command: "npm test && npm run lint | tee log" }],
] as const;
const ts = new Date().toISOString();
const lines = [
  JSON.stringify({ type: "session", ts, id: "ses_bench", version: 1, worktree, created: ts }),
];
for (let i = 0; i < CALLS; i++) {
  const [name, permission, action, args] = kinds[i % kinds.length]!;
  const id = `call_${i}`;
  lines.push(
    JSON.stringify({
      type: "message",
      ts,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
      },
    }),
    JSON.stringify({
      type: "permission",
      ts,
      tool: name,
      permission,
      action,
      decision: "granted",
      reason: `tool_permission.${permission}`,
    }),
    JSON.stringify({
      type: "message",
      ts,
      message: { role: "tool", tool_call_id: id, name, content: "ok" },
    }),
  );
}
await Deno.writeTextFile(file, lines.join("\n") + "\n");

const ws = await openWorkspace({ path: worktree });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const read: number[] = [];
const tested: number[] = [];
for (let run = 0; run < RUNS + 1; run++) {
  let start = performance.now();
  let count = 0;
  for await (const _ of readRecordedCalls(file)) count++;
  if (run > 0) read.push(performance.now() - start);
  start = performance.now();
  const report = await testPolicy(ws, [file]);
  if (run > 0) tested.push(performance.now() - start);
  if (count !== CALLS || report.calls !== CALLS) throw new Error(`read ${count} calls`);
}
await Deno.remove(worktree, { recursive: true });

const testMs = median(tested);
const report = `# policy test

\`deno run -A bench/policy_test_bench.ts\`: one generated session of ${CALLS} recorded calls (file_read,
grep, file_edit, run_command with a 3-segment chain) re-resolved under the default policy, in
process, median of ${RUNS} runs after a warm-up.

| | time | target |
| --- | --- | --- |
| reading the ${CALLS} calls only (reference) | ${median(read).toFixed(0)} ms | — |
| \`policy test\` over them | ${testMs.toFixed(0)} ms | < 1000 ms (${
  testMs < 1000 ? "meets" : "misses"
}) |
`;
await Deno.mkdir(new URL("./results", import.meta.url), { recursive: true });
await Deno.writeTextFile(new URL("./results/policy_test.md", import.meta.url), report);
await Deno.stdout.write(new TextEncoder().encode(report));
