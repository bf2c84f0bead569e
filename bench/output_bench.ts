/**
 * Partial results and live output (issue 16), side by side in one run:
 *
 * 1. grep's first results: grep with a small result budget (`search.max_results`, so it stops
 *    at its first matches and returns them with a note) against `rg` run directly until it has
 *    printed the same number of matching lines. Target: within 1.2x of ripgrep.
 * 2. run_command's streaming: the CPU time of a command run alone (`bash -c`, output to
 *    /dev/null) against the same command through run_command with its live view (tool_progress)
 *    and its whole output kept in an output store. Target: at most 5% more CPU. Two commands: a
 *    test-suite-like one (CPU-bound, a line every few milliseconds) and a 50 MB log dump.
 *
 *     deno run -A bench/output_bench.ts [--runs N]
 *
 * Writes bench/results/output.md. The tree (5,000 files, about 50 MB) is generated under /tmp
 * and removed afterwards.
 * @module
 */
import { join } from "node:path";
import { runCommand } from "../plugins/core-exec/run_command.ts";
import { createGrep } from "../plugins/core-fs/grep.ts";
import { Config } from "../src/config/mod.ts";
import { createToolContext, OUTPUT_STORE_SERVICE, OutputStore } from "../src/tools/mod.ts";
import { seededRandom } from "../tests/support/seeded_random.ts";

const DATA_DIR = "/tmp/replio_output_bench";
const RESULTS = new URL("./results/output.md", import.meta.url).pathname;
const COMMAND = "deno run -A bench/output_bench.ts";
const DIRS = 50;
const FILES_PER_DIR = 100;
const LINES_PER_FILE = 300;
/** Matching lines both sides stop at: a screenful, what a person or a model reads first. */
const FIRST_RESULTS = 20;

const WORKLOADS = [
  {
    name: "test-suite-like (CPU-bound, 2,000 lines)",
    command: "awk 'BEGIN{for(i=1;i<=2000;i++){s=0; for(j=0;j<4000;j++) s+=j*i%7; " +
      'print "test " i " ok (" s ")"}}\'',
  },
  {
    name: "log dump (1,700,000 lines, 50 MB)",
    command: 'awk \'BEGIN{for(i=1;i<=1700000;i++) print "line " i " of the big output"}\'',
  },
];

/**
 * 5,000 source-like files; about one line in 200 calls a `*_handler(` function, and one file
 * in 100 holds a `needle_marker` line (the search whose first results take a real search).
 */
async function generateTree(root: string): Promise<number> {
  const next = seededRandom(7);
  const words = "alpha beta gamma delta request response parser token stream buffer".split(" ");
  const pick = () => words[Math.floor(next() * words.length)]!;
  let bytes = 0;
  for (let d = 0; d < DIRS; d++) {
    const dir = join(root, `pkg${d}`);
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const lines: string[] = [];
      for (let i = 0; i < LINES_PER_FILE; i++) {
        lines.push(
          next() < 0.005
            ? `fn ${pick()}_handler(${pick()}) {`
            : `  let ${pick()}_${pick()} = ${pick()}(${pick()}, ${Math.floor(next() * 1e6)});`,
        );
      }
      if (next() < 0.01) lines[Math.floor(next() * LINES_PER_FILE)] = `// needle_marker ${d}/${f}`;
      const text = lines.join("\n") + "\n";
      bytes += text.length;
      await Deno.writeTextFile(join(dir, `file_${f}.ts`), text);
    }
  }
  return bytes;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** CPU milliseconds of this process and its waited-for children so far. */
function cpuMs(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * 10;
}

/** Runs `rg` until it has printed `count` matching lines, then stops it, as `| head` would. */
async function ripgrepFirst(pattern: string, cwd: string, count: number): Promise<number> {
  const child = new Deno.Command("rg", {
    args: ["--hidden", "--no-require-git", "--line-number", "--no-heading", pattern, "."],
    cwd,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const decoder = new TextDecoder();
  let lines = 0;
  for await (const chunk of child.stdout) {
    lines += decoder.decode(chunk).split("\n").length - 1;
    if (lines >= count) break;
  }
  try {
    child.kill();
  } catch {
    // it had finished
  }
  await child.status;
  return lines;
}

/** Medians of wall and CPU time, commands taking turns so background load falls on all. */
async function timeTogether(
  runs: number,
  commands: Record<string, () => unknown>,
): Promise<Record<string, { wallMs: number; cpuMs: number }>> {
  const names = Object.keys(commands);
  for (const name of names) await commands[name]!();
  const samples: Record<string, { wall: number[]; cpu: number[] }> = Object.fromEntries(
    names.map((n) => [n, { wall: [], cpu: [] }]),
  );
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      const cpu = cpuMs();
      const started = performance.now();
      await commands[name]!();
      samples[name]!.wall.push(performance.now() - started);
      samples[name]!.cpu.push(cpuMs() - cpu);
    }
  }
  return Object.fromEntries(names.map((n) => [n, {
    wallMs: median(samples[n]!.wall),
    cpuMs: median(samples[n]!.cpu),
  }]));
}

async function runAlone(command: string): Promise<void> {
  const { code } = await new Deno.Command("bash", {
    args: ["-c", command],
    stdout: "null",
    stderr: "null",
  }).output();
  if (code !== 0) throw new Error(`${command} failed: exit ${code}`);
}

function fixed(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function main(): Promise<void> {
  const runsAt = Deno.args.indexOf("--runs");
  const runs = runsAt === -1 ? 7 : Number(Deno.args[runsAt + 1]);
  await Deno.remove(DATA_DIR, { recursive: true }).catch(() => {});
  const tree = join(DATA_DIR, "tree");
  await Deno.mkdir(tree, { recursive: true });
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
  try {
    const bytes = await generateTree(tree);
    // Commands run outside bubblewrap here: in its PID namespace a command's CPU time never
    // reaches this process's counters for waited-for children, which is how CPU is measured.
    const config = Config.defaults().with({ "sandbox.mode": "off" });
    const baseCtx = createToolContext({
      config,
      worktree: tree,
      signal: new AbortController().signal,
    });
    const pattern = "needle_marker [0-9]+/";
    const grepRg = createGrep({ engine: "rg", maxResults: FIRST_RESULTS });
    const grepBuiltin = createGrep({ engine: "builtin", maxResults: FIRST_RESULTS });
    const grepAll = createGrep({ engine: "rg", maxResults: 0 });
    const sample = await grepRg({ pattern }, baseCtx);
    const t = await timeTogether(runs, {
      rgFirst: () => ripgrepFirst(pattern, tree, FIRST_RESULTS),
      grepRg: () => grepRg({ pattern }, baseCtx),
      grepBuiltin: () => grepBuiltin({ pattern }, baseCtx),
      grepAll: () => grepAll({ pattern }, baseCtx),
    });
    const ratio = t.grepRg!.wallMs / t.rgFirst!.wallMs;

    const outputs = join(DATA_DIR, "outputs");
    const rows: string[] = [];
    const overheads: number[] = [];
    for (const workload of WORKLOADS) {
      let progressEvents = 0;
      const streamed = createToolContext({
        config,
        worktree: tree,
        signal: new AbortController().signal,
        services: {
          [OUTPUT_STORE_SERVICE]: new OutputStore({ dir: outputs, maxBytes: 256_000_000 }),
        },
      });
      const ctx = { ...streamed, progress: () => progressEvents++ };
      const w = await timeTogether(Math.max(3, Math.ceil(runs / 2)), {
        alone: () => runAlone(workload.command),
        plain: () => runCommand({ command: workload.command }, baseCtx),
        runCommand: () => runCommand({ command: workload.command }, ctx),
      });
      const streaming = w.runCommand!.cpuMs / w.plain!.cpuMs - 1;
      const overhead = w.runCommand!.cpuMs / w.alone!.cpuMs - 1;
      overheads.push(overhead);
      const pct = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`;
      rows.push(
        `| ${workload.name} | ${fixed(w.alone!.cpuMs)} (${fixed(w.alone!.wallMs)}) | ` +
          `${fixed(w.plain!.cpuMs)} (${fixed(w.plain!.wallMs)}) | ` +
          `${fixed(w.runCommand!.cpuMs)} (${fixed(w.runCommand!.wallMs)}) | ` +
          `${pct(overhead)} | ${pct(streaming)} |`,
      );
      await Deno.remove(outputs, { recursive: true }).catch(() => {});
      if (progressEvents === 0) throw new Error("run_command reported no progress");
    }

    const report = `# Partial results and live output

Command: \`${COMMAND} --runs ${runs}\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch},
${navigator.hardwareConcurrency} CPUs, load average ${load} before the run, ${
      new Date().toISOString().slice(0, 10)
    }). Medians; commands take turns in one process.

## grep's first results

A generated tree of ${DIRS * FILES_PER_DIR} files (${
      (bytes / 1e6).toFixed(0)
    } MB), pattern \`${pattern}\`. grep with \`search.max_results\` ${FIRST_RESULTS} stops at its first ${FIRST_RESULTS} matching lines and returns them with the note (\`${
      sample.split("\n").at(-1)
    }\`); ripgrep run directly is read until it has printed ${FIRST_RESULTS} matching lines, then stopped.

| Search | Wall ms (CPU ms) |
| --- | --- |
| \`rg\` until ${FIRST_RESULTS} lines | ${fixed(t.rgFirst!.wallMs)} (${fixed(t.rgFirst!.cpuMs)}) |
| grep, ripgrep engine, first ${FIRST_RESULTS} | ${fixed(t.grepRg!.wallMs)} (${
      fixed(t.grepRg!.cpuMs)
    }) |
| grep, built-in engine, first ${FIRST_RESULTS} | ${fixed(t.grepBuiltin!.wallMs)} (${
      fixed(t.grepBuiltin!.cpuMs)
    }) |
| grep, ripgrep engine, every match | ${fixed(t.grepAll!.wallMs)} (${fixed(t.grepAll!.cpuMs)}) |

grep's first results (ripgrep engine) / ripgrep's first results: **${ratio.toFixed(2)}x** (target
≤ 1.2x: ${ratio <= 1.2 ? "met" : "not met"}).

## run_command streaming

CPU ms (wall ms) of the command run alone (\`bash -c\`, output to /dev/null), through
run_command without a session (head and tail only), and through run_command with its live view
(last lines reported a few times a second) and its whole output written to an output store.
CPU is counted in 10 ms ticks, from the counters of waited-for children, which a command inside
bubblewrap's PID namespace never reaches: these run with \`sandbox.mode: off\`.

| Command | Alone | run_command, plain | run_command, streamed and kept | Extra CPU over alone | Streaming over plain |
| --- | --- | --- | --- | --- | --- |
${rows.join("\n")}

Target ≤ 5% extra CPU: ${
      overheads.map((o, i) =>
        `${WORKLOADS[i]!.name.split(" (")[0]}: ${o <= 0.05 ? "met" : "not met"}`
      ).join("; ")
    }. A command that prints little next to its work costs the same through run_command; one
that does nothing but print pays for moving every byte through a pipe into Deno, which plain
run_command pays too; what the live view and the kept output add is the last column.
`;
    await Deno.writeTextFile(RESULTS, report);
    await Deno.stdout.write(new TextEncoder().encode(report));
  } finally {
    await Deno.remove(DATA_DIR, { recursive: true }).catch(() => {});
  }
}

await main();
