/**
 * Issue 26, curve 3: what a session file's size costs the commands that read it. Session files of
 * 1, 10 and 100 MB are written by the real session writer (bench/scale_session_fixture.ts:
 * turns of mixed tool calls, compacted as the engine's defaults would), then, in turns, replio
 * runs against each as a person would:
 *
 * - `replio sessions list`: wall time and peak RSS;
 * - `replio run --continue "…"` against the mock model: time from launch to its first request
 *   (the resume as the model sees it) and the peak RSS of the whole run;
 * - `replio --resume` in a pseudo-terminal: time from launch to the session picker, then from
 *   Enter to the REPL's prompt, and the REPL's peak RSS.
 *
 * An empty worktree (no session; `run` and the REPL start a new one) is the reference row.
 * Target: resuming a 100 MB session in ≤ 1 s and ≤ 150 MB RSS.
 *
 *     deno run -A bench/scale_session_file.ts [--runs 5] [--sizes "1 10 100"]
 *
 * Writes bench/results/scale_session_file.md and the charts docs/charts/scale_session_file_*.svg.
 * @module
 */
import { dirname, join } from "node:path";
import { startMockModel } from "../tests/support/mock_model.ts";
import {
  benchEnv,
  median,
  type ProcessCost,
  PtyReplio,
  requireGnuTime,
  type RunOptions,
  runReplio,
  withDeadline,
} from "./scale_process.ts";
import { writeSessionFile, type WrittenSession } from "./scale_session_fixture.ts";
import { lineChart } from "./svg_line_chart.ts";

const COMMAND = "deno run -A bench/scale_session_file.ts";
const RESULTS = new URL("./results/scale_session_file.md", import.meta.url);
const CHARTS = new URL("../docs/charts/", import.meta.url);
const TARGET_MS = 1000;
const TARGET_MB = 150;
const MB = 1024 * 1024;
/** The REPL's prompt after its banner: ready for input. */
const READY = /Ctrl-D quits\r?\n[^]*> /;
const PICKER = /Resume a session/;

interface Options {
  runs: number;
  sizesMb: number[];
  /** Another checkout's main.ts (`--checkout DIR`), to measure the code before a change. */
  main?: string;
}

function parseOptions(args: string[]): Options {
  const options: Options = { runs: 5, sizesMb: [1, 10, 100] };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1];
    if (args[i] === "--runs" && Number(value) >= 1) options.runs = Number(value);
    else if (args[i] === "--checkout" && value) options.main = join(value, "main.ts");
    else if (args[i] === "--sizes" && value && value.split(" ").every((s) => Number(s) > 0)) {
      options.sizesMb = value.split(" ").map(Number);
    } else {
      throw new TypeError(
        `Cannot run the session-file bench: "${args[i]}" is not an option here: use ` +
          `--runs N, --sizes "1 10 100" and --checkout DIR`,
      );
    }
    i++;
  }
  return options;
}

/** One worktree of the curve: its session (none for the reference) and what was measured. */
interface Point {
  /** The size asked for (the file is that or a little more: it ends on a whole turn). */
  sizeMb: number;
  worktree: string;
  session: WrittenSession | null;
  list: ProcessCost[];
  /** `run --continue`: launch to first request, and the run's cost. */
  firstRequestMs: number[];
  run: ProcessCost[];
  pickerMs: number[];
  /** Enter in the picker to the REPL's prompt. */
  openMs: number[];
  repl: ProcessCost[];
}

function noFigures() {
  return { list: [], firstRequestMs: [], run: [], pickerMs: [], openMs: [], repl: [] };
}

async function measureList(point: Point, how: How): Promise<void> {
  const cost = await runReplio(["sessions", "list"], { ...how, cwd: point.worktree });
  if (cost.code !== 0) throw new Error(`sessions list failed: ${cost.stderr}`);
  point.list.push(cost);
}

async function measureContinue(
  point: Point,
  how: How,
  mock: ReturnType<typeof startMockModel>,
): Promise<void> {
  const index = mock.exchanges.length;
  let spawned = 0;
  let firstAt = NaN;
  const first = mock.waitForExchange(index).then(() => firstAt = performance.now());
  const args = [
    "run",
    ...(point.session ? ["--continue"] : []),
    "--base-url",
    mock.baseUrl,
    "--model",
    "mock-model",
    "next step, please",
  ];
  const cost = await runReplio(args, {
    ...how,
    cwd: point.worktree,
    onSpawn: () => spawned = performance.now(),
  });
  await withDeadline(first, "the first model request of run --continue");
  if (cost.code !== 0) throw new Error(`run --continue failed: ${cost.stderr}`);
  point.firstRequestMs.push(firstAt - spawned);
  point.run.push(cost);
}

async function measureResume(
  point: Point,
  how: How,
  baseUrl: string,
): Promise<void> {
  const args = ["--resume", "--base-url", baseUrl, "--model", "mock-model"];
  await using repl = await PtyReplio.start(args, { ...how, cwd: point.worktree });
  if (point.session) {
    const pickerMs = await repl.until(PICKER, "the session picker of replio --resume");
    await repl.type("\r");
    const readyMs = await repl.until(READY, "the REPL's prompt after a session was picked");
    point.pickerMs.push(pickerMs);
    point.openMs.push(readyMs - pickerMs);
  } else {
    point.openMs.push(await repl.until(READY, "the REPL's prompt (no session to resume)"));
  }
  point.repl.push(await repl.finish());
}

async function measureRound(point: Point, how: How, mock: MockServer) {
  await fresh(point);
  await measureList(point, how);
  await fresh(point);
  await measureContinue(point, how, mock);
  await fresh(point);
  await measureResume(point, how, mock.baseUrl);
}

/** The reference starts from nothing each time: its own runs would leave sessions to resume. */
async function fresh(point: Point): Promise<void> {
  if (point.session) return;
  await Deno.remove(join(point.worktree, ".replio"), { recursive: true }).catch(ignoreNotFound);
}

type MockServer = ReturnType<typeof startMockModel>;
/** How every command of a run is started: its environment and which checkout's replio. */
type How = Omit<RunOptions, "cwd">;

/** A generated id's shape (\`ses_<date>_<time>_<6 chars>\`), naming the size. */
function sessionId(sizeMb: number): string {
  return `ses_20261204_120000_s${String(sizeMb).padStart(5, "0")}`;
}

function ignoreNotFound(error: unknown): void {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

/** `--resume` run by run: launch to the picker plus Enter to the prompt (the prompt alone without a picker). */
function resumeTotals(point: Point): number[] {
  return point.openMs.map((open, i) => open + (point.pickerMs[i] ?? 0));
}

const ms = (values: number[]) => values.length ? median(values).toFixed(0) : "—";
const mb = (costs: ProcessCost[]) =>
  costs.length ? median(costs.map((c) => c.peakRssMb)).toFixed(1) : "—";

function report(points: Point[], options: Options, loadAverage: string): string {
  const rows = points.map((p) => {
    const s = p.session;
    const what = s
      ? `${(s.bytes / MB).toFixed(1)} MB (${s.turns} turns, ${s.compactions} compactions)`
      : "no session (reference: a new one)";
    const resumeMs = ms(resumeTotals(p));
    return `| ${what} | ${ms(p.list.map((c) => c.wallMs))} / ${mb(p.list)} | ${
      ms(p.firstRequestMs)
    } / ${mb(p.run)} | ${ms(p.pickerMs)} + ${ms(p.openMs)} = ${resumeMs} / ${mb(p.repl)} |`;
  });
  const biggest = points.at(-1)!;
  const verdict = (value: number, target: number) => value <= target ? "met" : "**missed**";
  const continueMs = median(biggest.firstRequestMs);
  const continueMb = median(biggest.run.map((c) => c.peakRssMb));
  const resumeMs = median(resumeTotals(biggest));
  const replMb = median(biggest.repl.map((c) => c.peakRssMb));
  const size = `${options.sizesMb.at(-1)} MB`;
  return `# Scaling: session file size

Command: \`${COMMAND} --runs ${options.runs} --sizes "${options.sizesMb.join(" ")}"${
    options.main ? ` --checkout ${dirname(options.main)}` : ""
  }\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, load average ${loadAverage} at the end, ${
    new Date().toISOString().slice(0, 10)
  }).
Session files written by the real session writer (\`bench/scale_session_fixture.ts\`: turns of 3–8
mixed tool calls with their permissions and results, a compaction each time the history since the
last one passes 0.8 × 128,000 tokens, as the engine's defaults compact). Each cell is the median of
${options.runs} runs, the sizes taking turns; time in ms / peak RSS (GNU time) in MB of replio's
process, Deno runtime included, run as \`deno task start\` runs it.

| session file | \`sessions list\` | \`run --continue\`: launch → first request | \`--resume\`: launch → picker + Enter → prompt |
| --- | --- | --- | --- |
${rows.join("\n")}

![Time against session file size](charts/scale_session_file_time.svg)
![Peak RSS against session file size](charts/scale_session_file_memory.svg)

Targets for ${size}: resume ≤ ${TARGET_MS} ms and ≤ ${TARGET_MB} MB RSS. \`run --continue\`: ${
    continueMs.toFixed(0)
  } ms (${verdict(continueMs, TARGET_MS)}), ${continueMb.toFixed(1)} MB (${
    verdict(continueMb, TARGET_MB)
  }). \`--resume\` (picker + open): ${resumeMs.toFixed(0)} ms (${verdict(resumeMs, TARGET_MS)}), ${
    replMb.toFixed(1)
  } MB (${verdict(replMb, TARGET_MB)}).
`;
}

function charts(points: Point[]): Record<string, string> {
  const sized = points.filter((p) => p.session);
  const x = (p: Point) => p.sizeMb;
  const reference = points.find((p) => !p.session);
  const flat = (value: number) =>
    reference
      ? [{
        name: "new session (ref.)",
        points: sized.map((p) => [x(p), value] as const),
        dashed: true,
      }]
      : [];
  const time = lineChart({
    title: "Session file size: time",
    xLabel: "session file (MB)",
    yLabel: "ms (median)",
    xLog: true,
    series: [
      {
        name: "sessions list",
        points: sized.map((p) => [x(p), median(p.list.map((c) => c.wallMs))]),
      },
      { name: "run --continue", points: sized.map((p) => [x(p), median(p.firstRequestMs)]) },
      {
        name: "--resume",
        points: sized.map((p) => [x(p), median(resumeTotals(p))]),
      },
      ...flat(reference ? median(reference.firstRequestMs) : NaN),
    ],
    targets: [{ y: TARGET_MS, label: "target 1 s" }],
  });
  const memory = lineChart({
    title: "Session file size: peak RSS",
    xLabel: "session file (MB)",
    yLabel: "MB (median)",
    xLog: true,
    series: [
      {
        name: "sessions list",
        points: sized.map((p) => [x(p), median(p.list.map((c) => c.peakRssMb))]),
      },
      {
        name: "run --continue",
        points: sized.map((p) => [x(p), median(p.run.map((c) => c.peakRssMb))]),
      },
      {
        name: "--resume",
        points: sized.map((p) => [x(p), median(p.repl.map((c) => c.peakRssMb))]),
      },
      ...flat(reference ? median(reference.run.map((c) => c.peakRssMb)) : NaN),
    ],
    targets: [{ y: TARGET_MB, label: "target 150 MB" }],
  });
  return { "scale_session_file_time.svg": time, "scale_session_file_memory.svg": memory };
}

async function main(options: Options): Promise<void> {
  await requireGnuTime();
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_scale_file_" }));
  await using mock = startMockModel([{ text: "Done." }], { repeat: true });
  try {
    const how: How = { env: benchEnv(join(root, "home")), main: options.main };
    const points: Point[] = [];
    for (const sizeMb of [0, ...options.sizesMb]) {
      const worktree = join(root, `w${sizeMb}`);
      await Deno.mkdir(worktree, { recursive: true });
      const session = sizeMb === 0
        ? null
        : await writeSessionFile(worktree, sessionId(sizeMb), sizeMb * MB);
      points.push({ sizeMb, worktree, session, ...noFigures() });
    }
    // One unmeasured round: Deno's module cache and the page cache warm for every size alike.
    const warm = points.map((p) => ({ ...p, ...noFigures() }));
    for (const point of warm) await measureRound(point, how, mock);
    for (let run = 0; run < options.runs; run++) {
      for (const point of points) await measureRound(point, how, mock);
    }
    const loadAverage = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(
      ", ",
    );
    const text = report(points, options, loadAverage);
    await Deno.mkdir(CHARTS, { recursive: true });
    for (const [name, svg] of Object.entries(charts(points))) {
      await Deno.writeTextFile(new URL(name, CHARTS), svg);
    }
    await Deno.writeTextFile(RESULTS, text);
    await Deno.stdout.write(new TextEncoder().encode(text));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main(parseOptions(Deno.args));
