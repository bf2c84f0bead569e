/**
 * core-fs speed and memory (plugins/core-fs): grep with the built-in and the ripgrep engine
 * against `rg` run directly, glob against `rg --files`, and file_read of a window near the end
 * of a 1 GB file (time and peak RSS, in a child process).
 *
 *     deno run -A bench/fs_bench.ts [--runs N] [--keep]
 *
 * Generates a deterministic tree of 20,000 files (about 210 MB) and a 1 GB log under /tmp,
 * times each command `--runs` times (default 9) after one warm-up run, and reports medians.
 * Writes the report to bench/results/fs.md and removes the data unless `--keep` is given
 * (a kept tree is reused by the next run).
 * Targets: built-in grep within 3x of ripgrep, the ripgrep engine within 1.2x; the file_read
 * window under 1 s and under 100 MB of RSS.
 * @module
 */
import { join } from "node:path";
import { createGlob } from "../plugins/core-fs/glob.ts";
import { createGrep } from "../plugins/core-fs/grep.ts";
import { readFile } from "../plugins/core-fs/file_read.ts";
import { Config } from "../src/config/mod.ts";
import { createToolContext } from "../src/tools/mod.ts";
import { seededRandom } from "../tests/support/seeded_random.ts";

const DATA_DIR = "/tmp/replio_fs_bench";
const TREE_DIRS = 200;
const FILES_PER_DIR = 100;
/** Lines per generated file, chosen by the generator between these bounds. */
const MIN_LINES = 60;
const MAX_LINES = 430;
const BIG_FILE_BYTES = 1024 ** 3;
const RESULTS = new URL("./results/fs.md", import.meta.url).pathname;
const COMMAND = "deno run -A bench/fs_bench.ts";
const EXTENSIONS = [".ts", ".py", ".go", ".md", ".json"];
const WORDS = (
  "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega request response " +
  "handler parser token stream buffer config session cache index value result error retry " +
  "timeout worker queue render layout widget model client server socket packet header body " +
  "length offset cursor window matrix vector scalar tensor kernel driver module package"
).split(" ");

/** One source-like line; about one line in 400 calls a `*_handler(` function (the regex target). */
function sourceLine(next: () => number): string {
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const roll = next();
  const indent = "  ".repeat(Math.floor(next() * 4));
  if (roll < 0.0025) return `${indent}fn ${pick()}_handler(${pick()}, ${pick()}) {`;
  if (roll < 0.2) return `${indent}// ${pick()} ${pick()} ${pick()} ${pick()} ${pick()} ${pick()}`;
  if (roll < 0.25) return "";
  return `${indent}let ${pick()}_${pick()} = ${pick()}(${pick()}, ${Math.floor(next() * 1e6)});`;
}

/** Writes the tree: 200 folders of 100 files, a `.gitignore`d build folder, rare needles. */
async function generateTree(root: string): Promise<{ files: number; bytes: number }> {
  const next = seededRandom(42);
  const encoder = new TextEncoder();
  let files = 0;
  let bytes = 0;
  await Deno.writeTextFile(join(root, ".gitignore"), "build/\n*.log\n");
  for (let d = 0; d < TREE_DIRS; d++) {
    const dir = join(root, d === 0 ? "build" : `pkg${d % 20}`, `mod${Math.floor(d / 20)}`);
    await Deno.mkdir(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const count = MIN_LINES + Math.floor(next() * (MAX_LINES - MIN_LINES));
      const lines: string[] = [];
      for (let i = 0; i < count; i++) lines.push(sourceLine(next));
      // One file in 50 holds the literal needle once.
      if (next() < 0.02) lines[Math.floor(next() * count)] = `// needle_marker ${d}/${f}`;
      const ext = EXTENSIONS[f % EXTENSIONS.length]!;
      const data = encoder.encode(lines.join("\n") + "\n");
      await Deno.writeFile(join(dir, `file_${f}${ext}`), data);
      files++;
      bytes += data.length;
    }
  }
  return { files, bytes };
}

/** Writes a 1 GB log of distinct numbered lines, a megabyte at a time. */
async function generateBigFile(path: string): Promise<number> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let written = 0;
  let line = 0;
  while (written < BIG_FILE_BYTES) {
    let block = "";
    while (block.length < 1 << 20) {
      line++;
      block += `2026-01-01T00:00:${String(line % 60).padStart(2, "0")}Z INFO request ` +
        `id=${line} path=/api/v1/items/${line % 997} status=200 took=${line % 89}ms\n`;
    }
    const data = encoder.encode(block);
    await file.write(data);
    written += data.length;
  }
  return line;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Wall and CPU milliseconds of one run; CPU counts this process's threads and its children. */
interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** CPU time used so far by this process and its waited-for children, from /proc/self/stat. */
function cpuMs(): number {
  const fields = Deno.readTextFileSync("/proc/self/stat").split(") ")[1]!.split(" ");
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks * 10; // USER_HZ is 100 on Linux
}

/**
 * Medians of each command over `runs` rounds after one warm-up round. Commands take turns in a
 * rotating order, so load from other processes and garbage left by one command fall on all.
 */
async function timeTogether(
  runs: number,
  commands: Record<string, () => unknown>,
): Promise<Record<string, Sample>> {
  const names = Object.keys(commands);
  for (const name of names) await commands[name]!();
  const samples: Record<string, Sample[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length]!;
      const cpu = cpuMs();
      const started = performance.now();
      await commands[name]!();
      samples[name]!.push({ wallMs: performance.now() - started, cpuMs: cpuMs() - cpu });
    }
  }
  return Object.fromEntries(names.map((name) => [name, {
    wallMs: median(samples[name]!.map((s) => s.wallMs)),
    cpuMs: median(samples[name]!.map((s) => s.cpuMs)),
  }]));
}

/** Runs `rg` directly, reading all of its output as a caller would. */
async function runRipgrep(args: string[], cwd: string): Promise<number> {
  const { code, stdout } = await new Deno.Command("rg", { args, cwd, stderr: "null" }).output();
  if (code > 1) throw new Error(`rg ${args.join(" ")} failed with exit code ${code}`);
  return stdout.length;
}

function toolContext(worktree: string) {
  return createToolContext({
    config: Config.defaults(),
    worktree,
    signal: new AbortController().signal,
  });
}

/** Child mode: one file_read window, then its time and this process's peak RSS as JSON. */
async function runReadChild(worktree: string, offset: number): Promise<void> {
  const started = performance.now();
  const output = await readFile({ path: "big.log", offset, limit: 100 }, toolContext(worktree));
  const ms = performance.now() - started;
  const status = await Deno.readTextFile("/proc/self/status");
  const peakKb = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1] ?? 0);
  const report = { ms, peakMb: peakKb / 1024, header: output.split("\n")[0] };
  await Deno.stdout.write(new TextEncoder().encode(JSON.stringify(report) + "\n"));
}

async function measureRead(
  worktree: string,
  offset: number,
): Promise<{ ms: number; wallMs: number; peakMb: number; header: string }> {
  const started = performance.now();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", new URL(import.meta.url).pathname, "--read-child"].concat(
      [worktree, String(offset)],
    ),
  }).output();
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`file_read child failed: ${new TextDecoder().decode(stderr)}`);
  return { ...JSON.parse(new TextDecoder().decode(stdout)), wallMs };
}

function megabytes(bytes: number): string {
  return (bytes / 1024 ** 2).toFixed(0);
}

function fixed(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

async function removeData(): Promise<void> {
  try {
    await Deno.remove(DATA_DIR, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

async function loadAverage(): Promise<string> {
  try {
    return (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return "unknown";
  }
}

async function runBench(runs: number, keep: boolean): Promise<string> {
  const tree = join(DATA_DIR, "tree");
  const big = join(DATA_DIR, "big.log");
  const loadBefore = await loadAverage();
  try {
    let treeSize: { files: number; bytes: number };
    let bigLines: number;
    const marker = join(DATA_DIR, "sizes.json");
    try {
      ({ treeSize, bigLines } = JSON.parse(await Deno.readTextFile(marker)));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      await removeData();
      await Deno.mkdir(tree, { recursive: true });
      treeSize = await generateTree(tree);
      bigLines = await generateBigFile(big);
      await Deno.writeTextFile(marker, JSON.stringify({ treeSize, bigLines }));
    }

    const ctx = toolContext(tree);
    const rgFlags = ["--hidden", "--no-require-git", "--line-number", "--no-heading"];
    const searches = [
      { name: "literal", pattern: "needle_marker" },
      { name: "regex", pattern: "fn [a-z]+_handler\\(" },
    ];
    const grepRows: string[] = [];
    const ratios: { builtin: number; rg: number }[] = [];
    for (const { name, pattern } of searches) {
      const rgEngine = createGrep({ engine: "rg" });
      const builtin = createGrep({ engine: "builtin" });
      const t = await timeTogether(runs, {
        direct: () => runRipgrep([...rgFlags, pattern, "."], tree),
        rg: () => rgEngine({ pattern }, ctx),
        builtin: () => builtin({ pattern }, ctx),
      });
      const output = await rgEngine({ pattern }, ctx);
      const same = output === await builtin({ pattern }, ctx);
      const matches = output.match(/of (\d+) matches/)?.[1] ?? String(output.split("\n").length);
      const rgRatio = t.rg!.wallMs / t.direct!.wallMs;
      const builtinRatio = t.builtin!.wallMs / t.direct!.wallMs;
      ratios.push({ builtin: builtinRatio, rg: rgRatio });
      const cell = (s: Sample) => `${fixed(s.wallMs)} (${fixed(s.cpuMs)})`;
      grepRows.push(
        `| ${name} \`${pattern}\` (${matches} matches) | ${cell(t.direct!)} | ${cell(t.rg!)} | ` +
          `${rgRatio.toFixed(2)} | ${cell(t.builtin!)} | ${builtinRatio.toFixed(2)} | ` +
          `${same ? "yes" : "NO"} |`,
      );
    }

    const glob = createGlob();
    const g = await timeTogether(runs, {
      direct: () => runRipgrep(["--files", "--hidden", "--no-require-git", "-g", "*.py"], tree),
      glob: () => glob({ pattern: "*.py" }, ctx),
    });
    const globDirect = g.direct!.wallMs;
    const globMs = g.glob!.wallMs;

    const offset = bigLines - 150;
    await measureRead(DATA_DIR, offset); // warm the page cache
    const reads = [];
    for (let i = 0; i < runs; i++) reads.push(await measureRead(DATA_DIR, offset));
    const readMs = median(reads.map((r) => r.ms));
    const readWall = median(reads.map((r) => r.wallMs));
    const readPeak = Math.max(...reads.map((r) => r.peakMb));
    const verdict = (ok: boolean) => ok ? "meets" : "misses";
    const loadAfter = await loadAverage();

    const rgVersion = new TextDecoder().decode(
      (await new Deno.Command("rg", { args: ["--version"] }).output()).stdout,
    ).split("\n")[0];
    return `# core-fs benchmark

Command: \`${COMMAND}\`, ${runs} rounds (medians after one warm-up round; the commands
compared take turns within each round).
Machine: ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, Deno ${Deno.version.deno}, ${rgVersion}.
Date: ${new Date().toISOString().slice(0, 10)}. Load average ${loadBefore} before and ${loadAfter}
after: the machine is shared with other jobs, so figures move by tens of percent between runs.

Data, generated under ${DATA_DIR} (deterministic, removed afterwards):
- ${treeSize.files} files in ${TREE_DIRS} folders, ${
      megabytes(treeSize.bytes)
    } MB of source-like lines, with a
  \`.gitignore\` that excludes one folder of ${FILES_PER_DIR} files;
- a ${(BIG_FILE_BYTES / 1024 ** 3).toFixed(0)} GB log of ${bigLines} lines.

All files are in the page cache (warm runs).

## grep

\`rg\` direct is \`rg ${rgFlags.join(" ")} PATTERN .\` run from Deno, its
output read to the end: the same files grep searches. The grep columns call the tool handler
in-process (\`createGrep({engine})\`), which includes spawning rg (or walking and reading the
files), ordering matched files by modification time and formatting. The built-in engine
searches on this thread plus \`hardwareConcurrency - 1\` workers (${
      Math.min(3, Math.max(1, navigator.hardwareConcurrency - 1))
    } here). "Same" says whether both
engines returned identical text. Each cell is the median wall time in ms, with the median CPU
time in parentheses (all threads, and children such as rg); ratios are of wall times. A ratio
just under 1 is noise: the rg engine runs the same rg and parses its output (and stats the
matched files) while rg is still searching.

| search | rg direct | grep, rg engine | ratio | grep, built-in | ratio | same |
|---|---|---|---|---|---|---|
${grepRows.join("\n")}

Targets: ripgrep engine within 1.2x of rg (${
      verdict(ratios.every((r) => r.rg <= 1.2))
    }); built-in engine within 3x (${verdict(ratios.every((r) => r.builtin <= 3))}).

## glob

| command | wall ms | CPU ms |
|---|---|---|
| \`rg --files --hidden --no-require-git -g '*.py'\` | ${fixed(globDirect)} | ${
      fixed(g.direct!.cpuMs)
    } |
| glob \`*.py\` in-process (walk, .gitignore, stat and sort by mtime) | ${fixed(globMs)} | ${
      fixed(g.glob!.cpuMs)
    } |
| ratio | ${(globMs / globDirect).toFixed(2)} | |

No target is set for glob. It walks on one thread and stats every match to order them newest
first, which \`rg --files\` does not do.

## file_read of a window near the end of the 1 GB file

A child process runs \`file_read {path: "big.log", offset: ${offset}, limit: 100}\` (one
streaming pass: the line count up to the window and to the end of the file, as the header
reports it). Time is the handler's; peak RSS is the child's VmHWM, Deno runtime included.

| handler ms (median) | child wall ms (median) | peak RSS MB (max) |
|---|---|---|
| ${fixed(readMs)} | ${fixed(readWall)} | ${readPeak.toFixed(1)} |

Header returned: \`${reads[0]?.header}\`

Targets: under 1 s (${verdict(readMs < 1000)}), under 100 MB (${verdict(readPeak < 100)}).
`;
  } finally {
    if (!keep) await removeData();
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--read-child") {
    await runReadChild(Deno.args[1]!, Number(Deno.args[2]));
  } else {
    const runsAt = Deno.args.indexOf("--runs");
    const runs = runsAt === -1 ? 9 : Number(Deno.args[runsAt + 1]);
    const report = await runBench(runs, Deno.args.includes("--keep"));
    await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
    await Deno.writeTextFile(RESULTS, report);
    await Deno.stdout.write(new TextEncoder().encode(report));
  }
}
