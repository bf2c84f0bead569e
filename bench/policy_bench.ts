/**
 * Policy resolution of long `run_command` lines under `tool_permission.bash_allow`
 * (docs/permissions.md): the whole `ToolPolicy.resolve` a call takes, parse and walk included.
 *
 *     deno run -A bench/policy_bench.ts [--runs N]
 *
 * Times each command line `--runs` times (default 200) after 30 warm-up resolutions and reports
 * the median, p10 and p90, plus the first resolution of the process (which loads the parser).
 * Writes the report to bench/results/policy.md. Target: a 200-segment line resolves in under
 * 5 ms (median).
 * @module
 */
import process from "node:process";
import { Config } from "../src/config/mod.ts";
import { createRegistry } from "../src/plugins/mod.ts";
import { ToolPolicy } from "../src/tools/mod.ts";

const RESULTS = new URL("./results/policy.md", import.meta.url).pathname;
const COMMAND = "deno run -A bench/policy_bench.ts";
const TARGET_MS = 5;
const WARMUP = 30;
const SEGMENTS = 200;
const runsFlag = Deno.args.indexOf("--runs");
const RUNS = runsFlag >= 0 ? Number(Deno.args[runsFlag + 1]) : 200;

const LIST = ["ls", "cat", "echo", "git status", "git diff", "grep", "test", "wc"];

/** Simple commands and the operators joining them, cycled to build the mixed line. */
const MIXED_COMMANDS = [
  "git status --porcelain",
  "ls -la src",
  'cat "notes.txt" 2>/dev/null',
  "echo 'done: $HOME' \"${#HOME}\"",
  "grep -n TODO src/main.ts",
  "test -f deno.json",
  "git diff --stat HEAD",
  "wc -l < src/main.ts",
];
const MIXED_OPERATORS = [" && ", " | ", " || ", "; "];

function chain(count: number, segment: (i: number) => string, join: (i: number) => string) {
  let line = segment(0);
  for (let i = 1; i < count; i++) line += join(i) + segment(i);
  return line;
}

const LINES: { name: string; command: string }[] = [
  { name: "`git status` (one segment, reference)", command: "git status" },
  {
    name: `\`ls && ls && …\` (${SEGMENTS} segments)`,
    command: chain(SEGMENTS, () => "ls", () => " && "),
  },
  {
    name: `mixed (${SEGMENTS} segments: and-lists, or-lists, pipes, quotes, expansions, ` +
      "redirections)",
    command: chain(
      SEGMENTS,
      (i) => MIXED_COMMANDS[i % MIXED_COMMANDS.length]!,
      (i) => MIXED_OPERATORS[i % MIXED_OPERATORS.length]!,
    ),
  },
  {
    name: `\`ls && …\` with the last of ${SEGMENTS} segments not covered (denied)`,
    command: chain(SEGMENTS, (i) => i === SEGMENTS - 1 ? "touch x" : "ls", () => " && "),
  },
];

const config = Config.defaults().with({
  "tool_permission.bash": "allow",
  "tool_permission.bash_allow": LIST,
});
const tool = createRegistry().lookup("run_command")!.tool;
const policy = new ToolPolicy({ config, worktree: Deno.cwd(), headless: "no" });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const start = performance.now();
const first = await policy.resolve(tool, { command: "ls" });
const firstMs = performance.now() - start;
if (first.action !== "allow") throw new Error(`expected allow, got ${JSON.stringify(first)}`);

/** Wall and CPU times of `RUNS` calls after `WARMUP` ones, sorted. */
async function measure(call: () => Promise<unknown> | unknown) {
  for (let i = 0; i < WARMUP; i++) await call();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    await call();
    wall.push(performance.now() - wallStart);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: wall.sort((a, b) => a - b), cpu: cpu.sort((a, b) => a - b) };
}

function row(name: string, chars: number, action: string, wall: number[], cpu: number[]) {
  const median = percentile(wall, 0.5);
  const met = name.includes(`${SEGMENTS} segments`) ? (median < TARGET_MS ? "met" : "missed") : "";
  return `| ${name} | ${chars} | ${action} | ${median.toFixed(2)} | ` +
    `${percentile(wall, 0.1).toFixed(2)} | ${percentile(wall, 0.9).toFixed(2)} | ` +
    `${percentile(cpu, 0.5).toFixed(2)} | ${met} |`;
}

const rows: string[] = [];
for (const { name, command } of LINES) {
  const expected = command.includes("touch") ? "deny" : "allow";
  const { wall, cpu } = await measure(async () => {
    const resolution = await policy.resolve(tool, { command });
    if (resolution.action !== expected) {
      throw new Error(`${name}: expected ${expected}, got ${JSON.stringify(resolution)}`);
    }
  });
  rows.push(row(name, command.length, expected, wall, cpu));
}

// The parser alone, for the mixed line: what the check adds is the difference.
const { syntax } = (await import("mvdan-sh")).default as {
  syntax: { NewParser(): { Parse(source: string, name: string): unknown } };
};
const parser = syntax.NewParser();
const mixed = LINES[2]!.command;
const parseOnly = await measure(() => parser.Parse(mixed, "src"));
rows.push(row("mixed line, mvdan-sh parse only", mixed.length, "—", parseOnly.wall, parseOnly.cpu));

const load = Deno.loadavg().map((n) => n.toFixed(2)).join(", ");
const report = `# bash_allow policy benchmark

Command: \`${COMMAND}\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${
  new Date().toISOString().slice(0, 10)
}; load average ${load} at the end). \`ToolPolicy.resolve\` of a \`run_command\` call under
\`tool_permission.bash: allow\` and an 8-prefix \`bash_allow\` list: ${RUNS} timed resolutions per
line after ${WARMUP} warm-up ones. The first resolution of the process, which loads the parser
(mvdan-sh, 1.5 MB of JavaScript), took ${firstMs.toFixed(1)} ms.

| command line | chars | action | median ms | p10 ms | p90 ms | CPU median ms | target ${TARGET_MS} ms |
|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Most of a resolution is mvdan-sh's parse (the last row): GopherJS code that appends each byte of
a literal to a Go slice and leaves the collector much to do. The walk over the tree adds the rest.
The CPU median is the cost itself; on a busy machine the wall-clock median also counts time spent
waiting for a CPU, which is why it can miss where the CPU median meets.
`;
await Deno.writeTextFile(RESULTS, report);
await Deno.stdout.write(new TextEncoder().encode(report));
