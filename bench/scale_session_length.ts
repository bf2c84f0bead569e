/**
 * Issue 26, curve 1: what a long session costs per round, replio against the floor (refagent, the
 * 150-line Node loop of bench/peers). Each agent runs the peers' scripted session (one turn of N
 * rounds of mixed tools: read, grep, list, run, write, edit; bench/peers/README.md) at every
 * length, the lengths and agents taking turns, under treemon: wall and CPU of the whole process
 * tree and its peak PSS. The mock's log gives each round's time at every depth of the session
 * and the bytes of every request.
 *
 *     deno run -A bench/scale_session_length.ts [--rounds "10 100 400 1000 2000 3000"] [--reps 3]
 *                                               [--checkout DIR] [--context-window TOKENS]
 *
 * `--context-window` gives replio that `context_window` and has the mock report each request's
 * prompt tokens as its bytes / 4, so compaction fires inside the session's one turn (at the
 * default 128,000 tokens it fires past round 700); the compactions column counts them. The mock
 * always answers a summary request with a summary and takes the round from its own call ids, so
 * a compacted history (the recent rounds only) does not restart the script. Such a run writes
 * bench/results/scale_session_length_compaction.md and no charts.
 *
 * Targets: per-round wall and CPU slope at 400 and 2,000 rounds ≤ 1.1× refagent's; PSS growth per
 * round ≤ 1.1× refagent's. Writes bench/results/scale_session_length.md and the charts
 * docs/charts/scale_session_length_*.svg.
 * @module
 */
import { dirname, join } from "node:path";
import { benchEnv, median, replio } from "./scale_process.ts";
import {
  type Agent,
  buildTreemon,
  PROMPT,
  runSession,
  type SessionRun,
} from "./scale_session_length_run.ts";
import { lineChart } from "./svg_line_chart.ts";

const COMMAND = "deno run -A bench/scale_session_length.ts";
const RESULTS = new URL("./results/scale_session_length.md", import.meta.url);
/** A run that forces compaction writes apart: the curve above and its charts stay the default's. */
const COMPACTION_RESULTS = new URL("./results/scale_session_length_compaction.md", import.meta.url);
const CHARTS = new URL("../docs/charts/", import.meta.url);
const REF_AGENT = new URL("./peers/ref-agent.mjs", import.meta.url).pathname;
/** The targets: replio's slope at most this times the floor's. */
const TARGET_RATIO = 1.1;
/** The lengths whose slope the targets name. */
const TARGET_LENGTHS = [400, 2000];

interface Options {
  rounds: number[];
  reps: number;
  main?: string;
  timeoutMs: number;
  /** replio's `context_window`, to make compaction fire; the default when absent. */
  contextWindow?: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = {
    rounds: [10, 100, 400, 1000, 2000, 3000],
    reps: 3,
    timeoutMs: 600_000,
  };
  const numbers = (value: string | undefined) =>
    value?.trim().split(/\s+/).map(Number).filter((n) => Number.isInteger(n) && n > 0) ?? [];
  for (let i = 0; i < args.length; i += 2) {
    const value = args[i + 1];
    if (args[i] === "--rounds" && numbers(value).length >= 2) {
      options.rounds = numbers(value).sort((a, b) => a - b);
    } else if (args[i] === "--reps" && Number(value) >= 1) options.reps = Number(value);
    else if (args[i] === "--checkout" && value) options.main = join(value, "main.ts");
    else if (args[i] === "--context-window" && Number(value) >= 1024) {
      options.contextWindow = Number(value);
    } else {
      throw new TypeError(
        `Cannot run the session-length bench: "${args[i]}" is not an option here: use ` +
          `--rounds "10 100 1000" (two lengths or more), --reps N, --checkout DIR and ` +
          `--context-window TOKENS (1024 or more)`,
      );
    }
  }
  return options;
}

function agents(options: Options, home: string): Agent[] {
  const args = (baseUrl: string) => [
    "run",
    "--base-url",
    baseUrl,
    "--model",
    "mock-model",
    "--yes",
    "--output",
    "json",
  ];
  const { DENO_DIR, DENO_NO_UPDATE_CHECK } = benchEnv(home);
  return [
    {
      name: "replio",
      // The default of 50 rounds a turn would end a longer session with max_rounds.
      command: (baseUrl, rounds) => [
        ...replio(options.main),
        ...args(baseUrl),
        "--max-rounds",
        String(rounds + 10),
        PROMPT,
      ],
      env: {
        OPENAI_API_KEY: "sk-bench",
        DENO_DIR: DENO_DIR!,
        DENO_NO_UPDATE_CHECK: DENO_NO_UPDATE_CHECK!,
      },
      // list_dir shows 200 entries by default and says how to page; past 1,200 rounds the
      // script's out/ holds more, and the mock checks that the newest note is named.
      files: {
        ".config/replio/config.yaml": "list_dir_max_entries: 0\n" +
          (options.contextWindow ? `context_window: ${options.contextWindow}\n` : ""),
      },
    },
    {
      name: "refagent",
      command: (baseUrl) => ["node", REF_AGENT, ...args(baseUrl), PROMPT],
      env: { OPENAI_API_KEY: "sk-bench" },
    },
  ];
}

/** The medians of one agent at one length, over its honest runs. */
interface Cell {
  runs: number;
  honest: number;
  wallMs: number;
  cpuMs: number;
  pssMb: number;
  firstRequestMs: number;
  /** Bytes of the request that carries the last result. */
  lastRequestBytes: number;
  compactions: number;
}

function cellOf(runs: SessionRun[]): Cell {
  const ok = runs.filter((r) => r.honest);
  const m = (f: (r: SessionRun) => number) => median(ok.map(f));
  return {
    runs: runs.length,
    honest: ok.length,
    wallMs: m((r) => r.wallMs),
    cpuMs: m((r) => r.cpuMs),
    pssMb: m((r) => r.pssMb),
    firstRequestMs: m((r) => r.firstRequestMs),
    lastRequestBytes: m((r) => r.requests.at(-1)?.bytes ?? NaN),
    compactions: Math.max(0, ...ok.map((r) => r.compactions)),
  };
}

/**
 * Each round's time at a depth of the session, from the longest runs: the median time from one
 * request to the next over the rounds just before `depth` (a tenth of it, at least 5 rounds).
 */
function roundMsAt(runs: SessionRun[], depth: number): number {
  const per = runs.filter((r) => r.honest).map((r) => {
    const from = Math.max(1, depth - Math.max(5, Math.floor(depth / 10)));
    const gaps: number[] = [];
    for (let k = from; k < Math.min(depth, r.requests.length - 1); k++) {
      gaps.push(r.requests[k + 1]!.at - r.requests[k]!.at);
    }
    return median(gaps);
  });
  return median(per);
}

const f0 = (n: number) => Number.isFinite(n) ? n.toFixed(0) : "—";
const f1 = (n: number) => Number.isFinite(n) ? n.toFixed(1) : "—";
const f2 = (n: number) => Number.isFinite(n) ? n.toFixed(2) : "—";

function report(
  options: Options,
  runs: SessionRun[],
  names: string[],
  loadAverage: string,
): { text: string; svgs: Record<string, string> } {
  const cells = new Map<string, Cell>();
  for (const name of names) {
    for (const n of options.rounds) {
      cells.set(`${name} ${n}`, cellOf(runs.filter((r) => r.agent === name && r.rounds === n)));
    }
  }
  const cell = (name: string, n: number) => cells.get(`${name} ${n}`)!;
  const lengthRows = names.flatMap((name) =>
    options.rounds.map((n) => {
      const c = cell(name, n);
      return `| ${name} | ${n} | ${f2(c.wallMs / 1000)} | ${f2(c.cpuMs / 1000)} | ${
        f1(c.pssMb)
      } | ${f0(c.firstRequestMs)} | ${f1(c.lastRequestBytes / 1024)} | ${
        name === "replio" ? c.compactions : "—"
      } | ${c.honest}/${c.runs} |`;
    })
  );
  const segments = options.rounds.slice(1).map((n, i) => [options.rounds[i]!, n] as const);
  const slope = (name: string, [lo, hi]: readonly [number, number], f: (c: Cell) => number) =>
    (f(cell(name, hi)) - f(cell(name, lo))) / (hi - lo);
  const slopeRows = segments.map((segment) => {
    const cols = [
      (c: Cell) => c.wallMs,
      (c: Cell) => c.cpuMs,
      (c: Cell) => c.pssMb * 1024,
      (c: Cell) => c.lastRequestBytes / 1024,
    ].map((f) => {
      const mine = slope("replio", segment, f);
      const floor = slope("refagent", segment, f);
      return `${f2(mine)} / ${f2(floor)} = ${f2(mine / floor)}×`;
    });
    return `| ${segment[0]} → ${segment[1]} | ${cols.join(" | ")} |`;
  });
  const longest = options.rounds.at(-1)!;
  const depthRows = options.rounds.map((n) => {
    const at = names.map((name) =>
      roundMsAt(runs.filter((r) => r.agent === name && r.rounds === longest), n)
    );
    return `| ${n} | ${at.map(f1).join(" | ")} | ${f2(at[0]! / at[1]!)}× |`;
  });
  const verdicts = TARGET_LENGTHS.filter((n) => options.rounds.includes(n)).map((n) => {
    const segment = segments.find(([, hi]) => hi === n)!;
    // A floor that did not grow over the segment (peak PSS moves by megabytes from run to run)
    // gives no ratio to judge by: the verdict says so rather than dividing by it.
    const ratio = (f: (c: Cell) => number) => {
      const floor = slope("refagent", segment, f);
      return floor > 0 ? slope("replio", segment, f) / floor : NaN;
    };
    const said = (what: string, r: number) =>
      Number.isNaN(r)
        ? `${what}: no ratio (refagent's did not grow over these rounds; see the table)`
        : `${what} ${f2(r)}× (${r <= TARGET_RATIO ? "met" : "**missed**"})`;
    return `- at ${n} rounds (${segment[0]} → ${n}): ${said("wall", ratio((c) => c.wallMs))}, ${
      said("CPU", ratio((c) => c.cpuMs))
    }, ${said("PSS growth", ratio((c) => c.pssMb))}`;
  });

  const x = options.rounds;
  const svgs = {
    "scale_session_length_round.svg": lineChart({
      title: "Session length: time of one round at each depth",
      xLabel: "round (depth of the session)",
      yLabel: "ms per round (median)",
      xLog: true,
      series: names.map((name) => ({
        name,
        points: x.map((n) =>
          [n, roundMsAt(runs.filter((r) => r.agent === name && r.rounds === longest), n)] as const
        ),
        dashed: name !== "replio",
      })),
    }),
    "scale_session_length_totals.svg": lineChart({
      title: "Session length: wall and CPU of the whole session",
      xLabel: "rounds",
      yLabel: "seconds (median)",
      series: names.flatMap((name) => [
        {
          name: `${name} wall`,
          points: x.map((n) => [n, cell(name, n).wallMs / 1000] as const),
          dashed: name !== "replio",
        },
        {
          name: `${name} CPU`,
          points: x.map((n) => [n, cell(name, n).cpuMs / 1000] as const),
          dashed: name !== "replio",
        },
      ]),
    }),
    "scale_session_length_memory.svg": lineChart({
      title: "Session length: peak PSS of the process tree",
      xLabel: "rounds",
      yLabel: "MB (median)",
      series: names.map((name) => ({
        name,
        points: x.map((n) => [n, cell(name, n).pssMb] as const),
        dashed: name !== "replio",
      })),
    }),
  };

  const text = `# Scaling: session length

Command: \`${COMMAND} --rounds "${options.rounds.join(" ")}" --reps ${options.reps}${
    options.main ? ` --checkout ${dirname(options.main)}` : ""
  }${
    options.contextWindow ? ` --context-window ${options.contextWindow}` : ""
  }\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, load average ${loadAverage} at the end, ${
    new Date().toISOString().slice(0, 10)
  }). One turn of N scripted rounds (bench/peers: read, grep, list, run, write, edit in turn, each
result checked by the mock), replio as \`deno task start\` runs it (\`--max-rounds N+10\`, OS sandbox
on) and refagent (the floor), the lengths and agents taking turns, ${options.reps} runs each;
medians of honest runs. Wall and CPU are the whole process tree's (treemon), PSS its peak.${
    options.contextWindow
      ? ` replio's context_window is ${options.contextWindow} tokens and the mock reports each ` +
        `request's bytes / 4 as its prompt tokens, so replio compacts inside the turn.`
      : ""
  }

| agent | rounds | wall s | CPU s | peak PSS MB | first request ms | last request KB | compactions | honest |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${lengthRows.join("\n")}

Per round, between two lengths: replio / refagent = ratio.

| rounds | wall ms | CPU ms | PSS KB | request KB |
| --- | --- | --- | --- | --- |
${slopeRows.join("\n")}

One round's time at each depth (from the ${longest}-round runs: the median gap between consecutive
requests over the rounds just before that depth; the agent's work plus the mock's, which parses
every request):

| round | ${names.join(" ms | ")} ms | ratio |
| --- | ${names.map(() => "---").join(" | ")} | --- |
${depthRows.join("\n")}
${
    options.contextWindow ? "" : `
![One round's time at each depth](charts/scale_session_length_round.svg)
![Wall and CPU of the whole session](charts/scale_session_length_totals.svg)
![Peak PSS of the process tree](charts/scale_session_length_memory.svg)
`
  }
Targets (≤ ${TARGET_RATIO}× refagent's):
${verdicts.join("\n")}
`;
  return { text, svgs };
}

async function main(options: Options): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_scale_length_" }));
  try {
    const place = {
      treemon: await buildTreemon(root),
      root,
      timeoutMs: options.timeoutMs,
      mockArgs: [
        "--summaries",
        "--rounds-from-ids",
        ...(options.contextWindow ? ["--usage-from-bytes"] : []),
      ],
    };
    const list = agents(options, join(root, "home"));
    // One unmeasured short session each: first-run setup of the agent's home, the page cache.
    for (const agent of list) await runSession(agent, 2, place);
    const runs: SessionRun[] = [];
    for (let rep = 1; rep <= options.reps; rep++) {
      for (const n of options.rounds) {
        for (const agent of list) {
          const result = await runSession(agent, n, place);
          runs.push(result);
          const line = `rep ${rep} ${agent.name} ${n} rounds: ${
            result.honest ? "ok" : `NOT COUNTED (${result.problem})`
          } wall ${f0(result.wallMs)} ms, CPU ${f0(result.cpuMs)} ms, PSS ${f1(result.pssMb)} MB\n`;
          await Deno.stderr.write(new TextEncoder().encode(line));
        }
      }
    }
    const loadAverage = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(
      ", ",
    );
    const { text, svgs } = report(options, runs, list.map((a) => a.name), loadAverage);
    if (options.contextWindow) await Deno.writeTextFile(COMPACTION_RESULTS, text);
    else {
      await Deno.mkdir(CHARTS, { recursive: true });
      for (const [name, svg] of Object.entries(svgs)) {
        await Deno.writeTextFile(new URL(name, CHARTS), svg);
      }
      await Deno.writeTextFile(RESULTS, text);
    }
    await Deno.stdout.write(new TextEncoder().encode(text));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

if (import.meta.main) await main(parseOptions(Deno.args));
