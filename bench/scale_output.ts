/**
 * Issue 26, curve 4: what a command's output size costs replio. `replio run` against the mock
 * model, whose one tool call is `run_command` of a command printing 1 MB, 10 MB, 100 MB or 1 GB
 * of numbered lines (`seq 1 … | head -c N`), then an answer. Recorded for replio's process (GNU
 * time): wall time, peak RSS, and CPU time over the command alone, which is replio's CPU less
 * that of a run whose command prints nothing and less the command's own CPU (the same command
 * run by bash into /dev/null). Whether the kept output (`.replio/sessions/<id>/outputs/`, what
 * `tool_output` reads) holds every byte is checked by its SHA-256 against the command's.
 *
 * The output store's disk budget (`tool_output.max_mb`, default 256) is raised to 2048 in the
 * bench's global config, so that a 1 GB output can be kept whole.
 *
 *     deno run -A bench/scale_output.ts [--runs 3] [--sizes "1 10 100 1000"]
 *
 * Writes bench/results/scale_output.md and docs/charts/scale_output_*.svg. Target: a 1 GB output
 * with peak RSS ≤ 150 MB, and the whole output kept.
 * @module
 */
import { join } from "node:path";
import { startMockModel } from "../tests/support/mock_model.ts";
import { benchEnv, median, type ProcessCost, requireGnuTime, runReplio } from "./scale_process.ts";
import { lineChart } from "./svg_line_chart.ts";

const COMMAND = "deno run -A bench/scale_output.ts";
const RESULTS = new URL("./results/scale_output.md", import.meta.url);
const CHARTS = new URL("../docs/charts/", import.meta.url);
const MB = 1024 * 1024;
const TARGET_RSS_MB = 150;
const BUDGET_MB = 2048;
/** Seconds run_command may take: a gigabyte through a shared machine is not quick. */
const CALL_TIMEOUT_S = 1800;

interface Options {
  runs: number;
  sizesMb: number[];
}

function parseOptions(args: string[]): Options {
  const options: Options = { runs: 3, sizesMb: [1, 10, 100, 1000] };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1] ?? "";
    if (args[i] === "--runs" && Number(value) >= 1) options.runs = Number(args[++i]);
    else if (args[i] === "--sizes" && value.split(" ").every((s) => Number(s) > 0)) {
      options.sizesMb = args[++i]!.split(" ").map(Number);
    } else {
      throw new TypeError(
        `Cannot run the output-size bench: "${args[i]}" is not an option here: use --runs N ` +
          `and --sizes "1 10 100 1000"`,
      );
    }
  }
  return options;
}

/** The command printing exactly `bytes` bytes of numbered lines (none for 0). */
function printing(bytes: number): string {
  return bytes === 0 ? "true" : `seq 1 ${Math.ceil(bytes / 4) + 10} | head -c ${bytes}`;
}

/** The CPU time of `script` run by bash, its output thrown away (GNU time). */
async function commandCpuMs(script: string): Promise<number> {
  const timeFile = await Deno.makeTempFile({ prefix: "replio_scale_output_time_" });
  try {
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-o", timeFile, "-f", "%U %S", "bash", "-c", `${script} > /dev/null`],
      stderr: "null",
    }).output();
    if (!out.success) throw new Error(`"${script}" failed: exit ${out.code}`);
    const [user, system] = (await Deno.readTextFile(timeFile)).trim().split("\n").at(-1)!
      .split(" ").map(Number) as [number, number];
    return (user + system) * 1000;
  } finally {
    await Deno.remove(timeFile);
  }
}

/** The SHA-256 of what `script` prints. */
async function outputSha256(script: string): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `${script} | sha256sum`],
    stdout: "piped",
  }).output();
  if (!out.success) throw new Error(`"${script} | sha256sum" failed: exit ${out.code}`);
  return new TextDecoder().decode(out.stdout).split(" ")[0]!;
}

/** The kept output of the run in `worktree`: its size and SHA-256, or null when none was kept. */
async function keptOutput(worktree: string): Promise<{ bytes: number; sha256: string } | null> {
  const sessions = join(worktree, ".replio", "sessions");
  for await (const session of Deno.readDir(sessions)) {
    const dir = join(sessions, session.name, "outputs");
    let files: Deno.DirEntry[];
    try {
      files = await Array.fromAsync(Deno.readDir(dir));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
        continue;
      }
      throw error;
    }
    const kept = files.find((file) => /^o\d+\.txt$/.test(file.name));
    if (!kept) continue;
    const path = join(dir, kept.name);
    const out = await new Deno.Command("sha256sum", { args: [path], stdout: "piped" }).output();
    return {
      bytes: (await Deno.stat(path)).size,
      sha256: new TextDecoder().decode(out.stdout).split(" ")[0]!,
    };
  }
  return null;
}

/** One point of the curve: samples of replio's runs and what the command alone costs. */
interface Point {
  bytes: number;
  runs: ProcessCost[];
  commandCpuMs: number[];
  expectedSha256: string;
  kept: ({ bytes: number; sha256: string } | null)[];
}

async function measureRun(
  point: Point,
  worktree: string,
  env: Record<string, string>,
  mock: ReturnType<typeof startMockModel>,
): Promise<void> {
  const index = mock.requests.length;
  mock.push(
    {
      toolCalls: [{
        name: "run_command",
        arguments: { command: printing(point.bytes), timeout: CALL_TIMEOUT_S },
      }],
    },
    { text: "done" },
  );
  const args = ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "--yes", "BENCH"];
  const run = await runReplio(args, { cwd: worktree, env });
  if (run.code !== 0) throw new Error(`replio run failed: ${run.stderr}`);
  const result = mock.requests[index + 1]?.messages.at(-1);
  if (result?.role !== "tool") {
    throw new Error(`The run sent no tool result to the model: ${JSON.stringify(result)}`);
  }
  point.runs.push(run);
  point.kept.push(point.bytes === 0 ? null : await keptOutput(worktree));
  // A gigabyte kept per run would fill the disk over the rounds.
  await Deno.remove(join(worktree, ".replio"), { recursive: true });
}

async function measure(options: Options): Promise<Point[]> {
  await requireGnuTime();
  const home = await Deno.makeTempDir({ prefix: "replio_scale_output_home_" });
  const worktree = await Deno.makeTempDir({ prefix: "replio_scale_output_wt_" });
  await using mock = startMockModel([]);
  try {
    const env = benchEnv(home);
    await Deno.mkdir(join(env.XDG_CONFIG_HOME!, "replio"), { recursive: true });
    await Deno.writeTextFile(
      join(env.XDG_CONFIG_HOME!, "replio", "config.yaml"),
      `tool_output.max_mb: ${BUDGET_MB}\n`,
    );
    const points: Point[] = [];
    for (const bytes of [0, ...options.sizesMb.map((size) => size * MB)]) {
      const script = printing(bytes);
      points.push({
        bytes,
        runs: [],
        commandCpuMs: [],
        expectedSha256: await outputSha256(script),
        kept: [],
      });
    }
    // Round 0 warms Deno's module cache and the command's pages; it is not recorded.
    for (let round = 0; round <= options.runs; round++) {
      for (const point of round === 0 ? points.slice(0, 1) : points) {
        const sample = round === 0 ? { ...point, runs: [], kept: [] } : point;
        await measureRun(sample, worktree, env, mock);
        if (round > 0) point.commandCpuMs.push(await commandCpuMs(printing(point.bytes)));
      }
      log(`round ${round} of ${options.runs} done`);
    }
    return points;
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(worktree, { recursive: true });
  }
}

function log(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`scale_output: ${text}\n`));
}

const size = (bytes: number) => bytes >= 1024 * MB ? `${bytes / 1024 / MB} GB` : `${bytes / MB} MB`;

/** replio's CPU over the command alone, run by run: less the empty run's and the command's. */
function overCommandMs(point: Point, empty: Point): number {
  const base = median(empty.runs.map((r) => r.cpuMs));
  return median(point.runs.map((r) => r.cpuMs)) - base - median(point.commandCpuMs);
}

function report(points: Point[], options: Options, load: string): string {
  const [empty, ...sized] = points as [Point, ...Point[]];
  const rows = sized.map((p) => {
    const wall = median(p.runs.map((r) => r.wallMs));
    const rss = median(p.runs.map((r) => r.peakRssMb));
    const kept = p.kept.every((k) => k?.bytes === p.bytes && k.sha256 === p.expectedSha256);
    const keptBytes = p.kept.map((k) => k?.bytes ?? 0);
    return `| ${size(p.bytes)} | ${wall.toFixed(0)} | ${rss.toFixed(1)} | ${
      (rss - median(empty.runs.map((r) => r.peakRssMb))).toFixed(1)
    } | ${overCommandMs(p, empty).toFixed(0)} | ${median(p.commandCpuMs).toFixed(0)} | ${
      kept ? "yes" : `**no** (${keptBytes.join(", ")} bytes)`
    } |`;
  });
  const biggest = sized.at(-1)!;
  const peak = Math.max(...biggest.runs.map((r) => r.peakRssMb));
  const isKept = biggest.kept.every((k) => k?.sha256 === biggest.expectedSha256);
  const verdict = peak <= TARGET_RSS_MB && isKept ? "met" : "**missed**";
  return `# Scaling: tool output size

Command: \`${COMMAND} --runs ${options.runs} --sizes "${
    options.sizesMb.join(" ")
  }"\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, load average ${load} at the end, ${
    new Date().toISOString().slice(0, 10)
  }). \`replio run --yes\` against the mock model, whose one tool call is \`run_command\` of
\`seq 1 … | head -c N\` (numbered lines, exactly N bytes), with the default sandbox setting;
then an answer.
Medians of ${options.runs} runs after a warm-up run, sizes taking turns. replio's process as
\`deno task start\` runs it, measured by GNU time: wall ms from launch to exit, peak RSS in MB (and
its growth over a run whose command prints nothing: ${
    median(empty.runs.map((r) => r.peakRssMb)).toFixed(1)
  } MB, ${median(empty.runs.map((r) => r.cpuMs)).toFixed(0)} ms CPU), and replio's CPU ms over the
command alone: the run's CPU less the empty run's and less the command's own
(\`bash -c 'seq … | head -c N > /dev/null'\`, the column before last). The output store's budget (\`tool_output.max_mb\`) is raised to
${BUDGET_MB} MB for the bench; at its default of 256 MB a larger output keeps its first 256 MB and
says so. "Kept whole": the kept output's size and SHA-256 equal the command's, in every run.

| output | wall ms | peak RSS MB | RSS growth MB | replio CPU ms over the command | command CPU ms | kept whole |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}

![Peak RSS against output size](charts/scale_output_memory.svg)
![CPU against output size](charts/scale_output_cpu.svg)

Target for ${size(biggest.bytes)}: peak RSS ≤ ${TARGET_RSS_MB} MB (highest of the runs: ${
    peak.toFixed(1)
  } MB) and the whole output kept (${isKept ? "yes" : "no"}): ${verdict}.
`;
}

function charts(points: Point[]): Record<string, string> {
  const [empty, ...sized] = points as [Point, ...Point[]];
  const x = (p: Point) => p.bytes / MB;
  return {
    "scale_output_memory.svg": lineChart({
      title: "replio's peak RSS against command output",
      xLabel: "output (MB)",
      yLabel: "peak RSS (MB)",
      xLog: true,
      series: [{
        name: "replio",
        points: sized.map((p) => [x(p), median(p.runs.map((r) => r.peakRssMb))]),
      }],
      targets: [{ y: TARGET_RSS_MB, label: `target ${TARGET_RSS_MB} MB` }],
    }),
    "scale_output_cpu.svg": lineChart({
      title: "CPU time: replio over the command",
      xLabel: "output (MB)",
      yLabel: "CPU ms",
      xLog: true,
      yLog: true,
      series: [
        {
          name: "replio",
          points: sized.map((p) => [x(p), overCommandMs(p, empty)]),
        },
        {
          name: "command alone",
          points: sized.map((p) => [x(p), median(p.commandCpuMs)]),
          dashed: true,
        },
      ],
    }),
  };
}

if (import.meta.main) {
  const options = parseOptions(Deno.args);
  const points = await measure(options);
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
  const page = report(points, options, load);
  await Deno.mkdir(CHARTS, { recursive: true });
  for (const [name, svg] of Object.entries(charts(points))) {
    await Deno.writeTextFile(new URL(name, CHARTS), svg);
  }
  await Deno.writeTextFile(RESULTS, page);
  Deno.stdout.writeSync(new TextEncoder().encode(page));
}
