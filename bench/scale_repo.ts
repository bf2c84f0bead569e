/**
 * Issue 26, curve 2: what a repository's size costs. Generated git repositories of 10k, 100k
 * and 1M files (bench/scale_repo_tree.ts: 60% committed, 40% `.gitignore`d build output), and:
 *
 * - time from launch to the first model request of `replio run` and of refagent (the floor,
 *   bench/peers/ref-agent.mjs), against the same in an empty folder: nothing at start-up may walk
 *   the tree;
 * - grep (ripgrep engine, the default where `rg` runs, and the built-in one), glob and list_dir,
 *   called in this process as a turn calls them, against `rg` and `find` run directly: the full
 *   answer, and for rg the time to its first 20 lines (replio's tools answer whole, so their
 *   first result is their full answer).
 *
 * Runs take turns across sizes and commands; cells are medians.
 *
 *     deno run -A --v8-flags=--expose-gc bench/scale_repo.ts [--runs 3]
 *                                    [--sizes "10000 100000 1000000"] [--keep]
 *
 * `--expose-gc` lets the bench collect its garbage before every measured command: the in-process
 * tools run in this one process, and without it a collection owed to the command before (the
 * built-in grep reads gigabytes) lands inside the next one, whichever it is.
 *
 * The trees live under /tmp/replio_scale_repo (about 4 GB at 1M files) and are removed unless
 * `--keep` is given (a kept tree is reused). Writes bench/results/scale_repo.md and the charts
 * docs/charts/scale_repo_*.svg. Targets: first request in a 1M-file repository ≤ 1.1× that in an
 * empty folder; grep and glob on 1M files within 1.2× of rg.
 * @module
 */
import { join } from "node:path";
import { createGlob } from "../plugins/core-fs/glob.ts";
import { createGrep } from "../plugins/core-fs/grep.ts";
import { listDir } from "../plugins/core-fs/list_dir.ts";
import { Config } from "../src/config/mod.ts";
import { createToolContext } from "../src/tools/mod.ts";
import { startMockModel } from "../tests/support/mock_model.ts";
import { benchEnv, runReplio, withDeadline } from "./scale_process.ts";
import {
  type Answer,
  charts,
  COMMAND,
  type Figures,
  FIRST_LINES,
  FIRST_REQUEST_REPEATS,
  LIST_DEPTH,
  type Options,
  type Point,
  record,
  report,
  RG_BASE,
} from "./scale_repo_report.ts";
import { NEEDLE, type RepoTree, repoTree, SPEC_GLOB } from "./scale_repo_tree.ts";

const DATA_DIR = "/tmp/replio_scale_repo";
const RESULTS = new URL("./results/scale_repo.md", import.meta.url);
const CHARTS = new URL("../docs/charts/", import.meta.url);
const REFAGENT = new URL("./peers/ref-agent.mjs", import.meta.url).pathname;

function parseOptions(args: string[]): Options {
  const options: Options = { runs: 3, sizes: [10_000, 100_000, 1_000_000], keep: false };
  for (let i = 0; i < args.length; i++) {
    const value = args[i + 1] ?? "";
    if (args[i] === "--keep") options.keep = true;
    else if (args[i] === "--runs" && Number(value) >= 1) options.runs = Number(args[++i]);
    else if (args[i] === "--sizes" && value.split(" ").every((s) => Number(s) >= 1)) {
      options.sizes = args[++i]!.split(" ").map(Number);
    } else {
      throw new TypeError(
        `Cannot run the repository-size bench: "${args[i]}" is not an option here: use ` +
          `--runs N, --sizes "10000 100000 1000000" and --keep`,
      );
    }
  }
  return options;
}

/** Launch to the first request at the mock model, for replio and for refagent. */
async function measureFirstRequest(
  cwd: string,
  env: Record<string, string>,
  mock: ReturnType<typeof startMockModel>,
  figures: Figures,
): Promise<void> {
  const args = ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "--yes"];
  const prompt = [...args, "--output", "json", "BENCH"];
  for (const agent of ["replio", "refagent"] as const) {
    collectGarbage();
    let spawned = NaN;
    const first = mock.waitForExchange(mock.exchanges.length).then(() => performance.now());
    if (agent === "replio") {
      const run = await runReplio(prompt, { cwd, env, onSpawn: () => spawned = performance.now() });
      if (run.code !== 0) throw new Error(`replio run failed in ${cwd}: ${run.stderr}`);
    } else {
      const child = new Deno.Command("node", {
        args: [REFAGENT, ...prompt],
        cwd,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).spawn();
      spawned = performance.now();
      const status = await withDeadline(child.status, `refagent's run in ${cwd} to exit`);
      if (!status.success) throw new Error(`refagent failed in ${cwd}: exit ${status.code}`);
    }
    record(
      figures,
      `first:${agent}`,
      await withDeadline(first, `${agent}'s first request`) - spawned,
    );
  }
  // Each run leaves its session; the next one starts without it, as the first did.
  await Deno.remove(join(cwd, ".replio"), { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/** Runs `command` to its end with its output read; returns how many lines it printed. */
async function runDirect(command: string, args: string[], cwd: string): Promise<number> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "null" })
    .output();
  if (out.code > 1) throw new Error(`${command} ${args.join(" ")} failed: exit ${out.code}`);
  return out.stdout.reduce((lines, byte) => lines + (byte === 10 ? 1 : 0), 0);
}

/** Milliseconds until `command` has printed {@link FIRST_LINES} lines (or ended); then it is stopped. */
async function firstLinesMs(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "null" }).spawn();
  let lines = 0;
  const reader = child.stdout.getReader();
  while (lines < FIRST_LINES) {
    const { done, value } = await withDeadline(reader.read(), `${command}'s first lines`);
    if (done) break;
    lines += value.reduce((n, byte) => n + (byte === 10 ? 1 : 0), 0);
  }
  const ms = performance.now() - started;
  await reader.cancel();
  try {
    child.kill();
  } catch (error) {
    // It ended on its own first: fewer lines than asked for.
    if (!(error instanceof TypeError)) throw error;
  }
  await child.status;
  return ms;
}

function readAnswer(text: string): Answer {
  const total = /of (?:more than )?([\d,]+) (?:matches|files|entries)/.exec(text)?.[1];
  return {
    // One result a line; notes (a partial-results note, a "showing" line) are not results.
    results: total
      ? Number(total.replaceAll(",", ""))
      : text.trim().split("\n").filter((line) => !/^(\(|\.\.\. )/.test(line)).length,
    isComplete: !text.includes("partial results"),
  };
}

/** The in-process tools and the direct commands for one tree, by name. */
function commands(tree: RepoTree, answers: Map<string, Answer>) {
  const ctx = createToolContext({
    config: Config.defaults(),
    worktree: tree.root,
    signal: new AbortController().signal,
  });
  const rgGrep = createGrep({ engine: "rg" });
  const builtinGrep = createGrep({ engine: "builtin" });
  const glob = createGlob();
  // search.max_results 20: the walk (or rg) stops at the 20th matching file.
  const globFirst = createGlob({ maxResults: FIRST_LINES });
  const tool = (name: string, call: () => string | Promise<string>) => async () => {
    answers.set(name, readAnswer(await call()));
  };
  const grepArgs = [...RG_BASE, "--line-number", "--no-heading", "--regexp", NEEDLE, "."];
  // A file type, not --glob: rg's --glob overrides .gitignore (it would list ignored specs too),
  // a type is applied after it, so this lists exactly the files glob answers with.
  const filesArgs = [
    ...RG_BASE,
    "--files",
    "--type-add",
    `spec:${SPEC_GLOB}`,
    "--type",
    "spec",
    ".",
  ];
  const findArgs = [
    ".",
    "-maxdepth",
    String(LIST_DEPTH),
    "-name",
    ".git",
    "-prune",
    "-o",
    "-print",
  ];
  return {
    "grep:rg engine": tool("grep:rg engine", () => rgGrep({ pattern: NEEDLE }, ctx)),
    "grep:built-in": tool("grep:built-in", () => builtinGrep({ pattern: NEEDLE }, ctx)),
    "grep:rg": () => runDirect("rg", grepArgs, tree.root),
    "grep:rg first": () => firstLinesMs("rg", grepArgs, tree.root),
    "glob:glob": tool("glob:glob", () => glob({ pattern: SPEC_GLOB }, ctx)),
    "glob:glob max 20": tool("glob:glob max 20", () => globFirst({ pattern: SPEC_GLOB }, ctx)),
    "glob:rg --files": () => runDirect("rg", filesArgs, tree.root),
    "glob:rg --files first": () => firstLinesMs("rg", filesArgs, tree.root),
    "list:list_dir": tool("list:list_dir", () => listDir({ depth: LIST_DEPTH }, ctx)),
    "list:find": () => runDirect("find", findArgs, tree.root),
  } as Record<string, () => Promise<unknown>>;
}

/** One round of every command on one tree, starting at a different command each round. */
async function measureTools(
  tree: RepoTree,
  round: number,
  figures: Figures,
  answers: Map<string, Answer>,
): Promise<void> {
  const table = commands(tree, answers);
  const names = Object.keys(table);
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length]!;
    collectGarbage();
    const started = performance.now();
    const value = await table[name]!();
    // A "first lines" command returns its own time: to its 20th line, not to its end.
    record(figures, name, name.endsWith(" first") ? value as number : performance.now() - started);
  }
}

async function measure(options: Options): Promise<Point[]> {
  const home = await Deno.makeTempDir({ prefix: "replio_scale_repo_home_" });
  const empty = await Deno.makeTempDir({ prefix: "replio_scale_repo_empty_" });
  await using mock = startMockModel([{ text: "done" }], { repeat: true });
  try {
    const points: Point[] = [{ files: 0, tree: null, figures: new Map(), answers: new Map() }];
    for (const files of options.sizes) {
      const started = performance.now();
      const tree = await repoTree(join(DATA_DIR, `files_${files}`), files);
      log(`tree of ${files} files ready (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      points.push({ files, tree, figures: new Map(), answers: new Map() });
    }
    const env = benchEnv(home);
    // Round 0 warms the page cache and Deno's module cache; it is not recorded. Launches run
    // before any search: the searches' garbage in this process (which serves the mock model)
    // and their page cache churn would otherwise land on the launch that follows them.
    for (const phase of ["launch", "tools"] as const) {
      for (let round = 0; round <= options.runs; round++) {
        // Sizes take turns in a rotating order, so no size always follows the same one.
        for (let k = 0; k < points.length; k++) {
          const point = points[(round + k) % points.length]!;
          const figures = round === 0 ? new Map() : point.figures;
          if (phase === "tools") {
            if (point.tree) await measureTools(point.tree, round, figures, point.answers);
            continue;
          }
          for (let i = 0; i < FIRST_REQUEST_REPEATS; i++) {
            await measureFirstRequest(point.tree?.root ?? empty, env, mock, figures);
          }
        }
        log(`${phase} round ${round} of ${options.runs} done`);
      }
    }
    return points;
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(empty, { recursive: true });
  }
}

/** A full collection of this process's heap, so that none is owed when a measurement starts. */
function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    throw new Error(
      "Cannot run the repository-size bench without --v8-flags=--expose-gc: run " +
        `"${COMMAND} --runs 3" (the flag lets it collect garbage between measurements)`,
    );
  }
  gc();
}

function log(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`scale_repo: ${text}\n`));
}

if (import.meta.main) {
  const options = parseOptions(Deno.args);
  collectGarbage(); // refuses now, not after the trees are built, when the flag is missing
  try {
    const points = await measure(options);
    const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
    const page = report(points, options, load);
    await Deno.mkdir(CHARTS, { recursive: true });
    for (const [name, svg] of Object.entries(charts(points))) {
      await Deno.writeTextFile(new URL(name, CHARTS), svg);
    }
    await Deno.writeTextFile(RESULTS, page);
    Deno.stdout.writeSync(new TextEncoder().encode(page));
  } finally {
    if (!options.keep) {
      await Deno.remove(DATA_DIR, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
  }
}
