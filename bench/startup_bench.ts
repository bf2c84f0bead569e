/**
 * Start-up benchmark: wall time of `replio --version` and `replio tool list_dir '{}'` as fresh
 * processes, against Deno's hello world in the same run. Runs are interleaved so load from other
 * processes spreads over all three alike. Writes bench/results/startup.md.
 *
 * ```sh
 * deno run -A bench/startup_bench.ts [RUNS]   # default 30 runs per command
 * ```
 * Targets (2-core machines): --version under 60 ms, tool list_dir under 150 ms.
 * @module
 */
import { join } from "node:path";

const RUNS = Number(Deno.args[0] ?? 30);
const WARMUP_RUNS = 3;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const RESULTS = new URL("./results/startup.md", import.meta.url);

interface Case {
  name: string;
  args: string[];
  targetMs: number | null;
}

/** Wall time of one process from spawn to exit; a failed run aborts the benchmark. */
async function timeRun(args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", XDG_CONFIG_HOME: join(cwd, ".no-global") },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const elapsed = performance.now() - started;
  if (code !== 0) {
    throw new Error(
      `Cannot benchmark "${args.join(" ")}": exit ${code}: ${new TextDecoder().decode(stderr)}`,
    );
  }
  return elapsed;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_bench_" }));
try {
  for (let i = 0; i < 20; i++) await Deno.writeTextFile(join(worktree, `file_${i}.txt`), "x\n");
  const hello = join(worktree, "hello.ts");
  await Deno.writeTextFile(hello, 'Deno.stdout.writeSync(new TextEncoder().encode("hello\\n"));\n');

  const cases: Case[] = [
    { name: "deno hello world (reference)", args: ["run", "--no-prompt", hello], targetMs: null },
    {
      name: "replio --version",
      args: ["run", "--no-prompt", "-A", MAIN, "--version"],
      targetMs: 60,
    },
    {
      name: "replio tool list_dir '{}'",
      args: ["run", "--no-prompt", "-A", MAIN, "tool", "list_dir", "{}"],
      targetMs: 150,
    },
    // As `deno task start` runs it: dynamic imports load when first used (docs/performance.md).
    {
      name: "replio --version, lazy imports",
      args: ["run", "--no-prompt", "-A", "--unstable-lazy-dynamic-imports", MAIN, "--version"],
      targetMs: 60,
    },
    {
      name: "replio tool list_dir '{}', lazy imports",
      args: [
        "run",
        "--no-prompt",
        "-A",
        "--unstable-lazy-dynamic-imports",
        MAIN,
        "tool",
        "list_dir",
        "{}",
      ],
      targetMs: 150,
    },
  ];
  for (const c of cases) {
    for (let i = 0; i < WARMUP_RUNS; i++) await timeRun(c.args, worktree);
  }
  const samples = new Map(cases.map((c) => [c.name, [] as number[]]));
  for (let i = 0; i < RUNS; i++) {
    for (const c of cases) samples.get(c.name)!.push(await timeRun(c.args, worktree));
  }

  const medianOf = (name: string) => percentile(samples.get(name)!.sort((a, b) => a - b), 0.5);
  // Other processes inflate every figure alike; the ratio to hello world survives a busy machine.
  const helloMs = medianOf(cases[0]!.name);
  const rows = cases.map((c) => {
    const sorted = samples.get(c.name)!;
    const median = medianOf(c.name);
    const verdict = c.targetMs === null ? "" : median <= c.targetMs ? "met" : "missed";
    return `| ${c.name} | ${median.toFixed(0)} | ${sorted[0]!.toFixed(0)} | ${
      percentile(sorted, 0.9).toFixed(0)
    } | ${(median / helloMs).toFixed(1)} | ${c.targetMs ?? ""} | ${verdict} |`;
  });
  const cpus = navigator.hardwareConcurrency;
  const load = Deno.loadavg().map((n) => n.toFixed(2)).join(", ");
  const report = `# Start-up time

Command: \`deno run -A bench/startup_bench.ts ${RUNS}\` (${RUNS} interleaved runs per command after
${WARMUP_RUNS} warm-up runs; wall time from spawn to exit, in a temporary worktree of 20 files).
Machine: ${cpus} CPUs, load average ${load} at the end of the run, ${Deno.version.deno}.
Date: ${new Date().toISOString().slice(0, 10)}.

| Command | Median ms | Min ms | p90 ms | × hello world | Target ms | Median vs target |
|---|---|---|---|---|---|---|
${rows.join("\n")}
`;
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(RESULTS, report);
  await Deno.stdout.write(new TextEncoder().encode(report));
} finally {
  await Deno.remove(worktree, { recursive: true });
}
