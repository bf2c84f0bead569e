/**
 * The command rows of the isolation benchmark: `true` through runProcess, plain vs inside bwrap,
 * interleaved, in four worktrees:
 * - a small repository (`.git` and `.replio` present), started afresh;
 * - the same, each command in the spare shell its predecessor left;
 * - a folder with no `.git` or `.replio` (the sandbox puts read-only stand-ins there, and a
 *   command then never gets a spare);
 * - a repository of 100,000 files in 8,000-odd folders with nested repositories, spare shells
 *   on (every command first checks the folders for a `.git` made since the last one).
 *
 * `bench/isolation_bench.ts` puts them in its table; alone it prints them:
 *
 * ```sh
 * deno run -A bench/isolation_commands.ts [RUNS]   # default 30 commands each way a row
 * ```
 * @module
 */
import { join } from "../src/fs/path.ts";
import { Config } from "../src/config/mod.ts";
import { runProcess } from "../src/plugins/run_process.ts";
import { bwrapUsable, planSandbox } from "../src/plugins/sandbox_bwrap.ts";
import { keepSpareShells } from "../src/plugins/spare_shell.ts";

/** One row: what was measured, and each run's milliseconds without and with the sandbox. */
export interface CommandRow {
  what: string;
  plain: number[];
  boxed: number[];
  /** Set for a row measured for its own sake, with no target to meet. */
  isReference?: boolean;
}

/** What the big worktree holds (written into the row's name). */
const BIG = { srcFolders: 1000, filesPerSrc: 10, packages: 600, foldersPerPackage: 10, files: 15 };
const NESTED = ["vendor/a", "vendor/b", "node_modules/p1"];

/** The command rows, or none when bwrap cannot run here. */
export async function measureCommands(runs: number): Promise<CommandRow[]> {
  if (!bwrapUsable()) return [];
  const config = Config.defaults();
  const rows: CommandRow[] = [];
  const small = await tempFolder();
  const bare = await tempFolder();
  const big = await tempFolder();
  try {
    await gitInit(small);
    await Deno.mkdir(join(small, ".replio"));
    rows.push({
      what: "command `true` via runProcess: plain vs bwrap",
      ...await interleave(small, config, runs, false),
    });
    await using spares = keepSpareShells();
    rows.push({
      what: "the same, each command in the spare shell its predecessor left",
      ...await interleave(small, config, runs, true),
    });
    rows.push({
      what: "the same (spares kept), in a folder with no .git or .replio",
      ...await interleave(bare, config, runs, true),
    });
    const folders = await writeBigTree(big);
    rows.push({
      what: `the same (spares kept), in a repository of ${
        BIG.srcFolders * BIG.filesPerSrc + BIG.packages * BIG.foldersPerPackage * BIG.files
      } files in ${folders} folders, ${NESTED.length} nested repositories`,
      ...await interleave(big, config, runs, true),
      isReference: true,
    });
    await spares[Symbol.asyncDispose]();
  } finally {
    for (const dir of [small, bare, big]) await Deno.remove(dir, { recursive: true });
  }
  return rows;
}

/**
 * `true` in `worktree`, plain and sandboxed by turns after three warm-up pairs. With spares each
 * command waits 30 ms first, as for a model's reply, so the spare its predecessor left is ready.
 */
async function interleave(worktree: string, config: Config, runs: number, spares: boolean) {
  const sandbox = planSandbox(config, worktree);
  const run = async (withSandbox: boolean) => {
    if (spares) await new Promise((resolve) => setTimeout(resolve, 30));
    const started = performance.now();
    const result = await runProcess({
      command: "true",
      cwd: worktree,
      timeoutMs: 10_000,
      ...(withSandbox ? { sandbox } : {}),
    });
    if (result.exitCode !== 0) throw new Error(`true failed: ${result.output}`);
    return performance.now() - started;
  };
  const plain: number[] = [];
  const boxed: number[] = [];
  if (spares) {
    // A spare serves only the next command like it: one kind of command a series.
    for (const [withSandbox, times] of [[false, plain], [true, boxed]] as const) {
      for (let i = 0; i < 3; i++) await run(withSandbox);
      for (let i = 0; i < runs; i++) times.push(await run(withSandbox));
    }
  } else {
    for (let i = 0; i < 3; i++) await run(false), await run(true);
    for (let i = 0; i < runs; i++) plain.push(await run(false)), boxed.push(await run(true));
  }
  return { plain, boxed };
}

async function tempFolder(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_bench_" }));
}

async function gitInit(dir: string): Promise<void> {
  const init = await new Deno.Command("git", { args: ["init", "-q", dir] }).output();
  if (!init.success) throw new Error(`git init ${dir} failed`);
}

/** A repository shaped like a JavaScript project; returns how many folders it has. */
async function writeBigTree(root: string): Promise<number> {
  await gitInit(root);
  await Deno.mkdir(join(root, ".replio"));
  const fill = (dir: string, files: number, ext: string) => {
    Deno.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < files; f++) Deno.writeFileSync(join(dir, `f${f}.${ext}`), new Uint8Array());
  };
  for (let d = 0; d < BIG.srcFolders; d++) {
    fill(join(root, `src/m${Math.floor(d / 50)}/d${d}`), BIG.filesPerSrc, "ts");
  }
  for (let p = 0; p < BIG.packages; p++) {
    for (let d = 0; d < BIG.foldersPerPackage; d++) {
      fill(join(root, `node_modules/p${p}/lib/d${d}`), BIG.files, "js");
    }
  }
  for (const nested of NESTED) await gitInit(join(root, nested));
  // Every folder, counted the way the sandbox's scan meets them (parents included).
  const count = (dir: string): number => {
    let n = 1;
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isDirectory && entry.name !== ".git" && entry.name !== ".replio") {
        n += count(join(dir, entry.name));
      }
    }
    return n;
  };
  return count(root);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

if (import.meta.main) {
  const rows = await measureCommands(Number(Deno.args[0] ?? 30));
  for (const row of rows) {
    const [plain, boxed] = [median(row.plain), median(row.boxed)];
    const line = `${row.what}: plain ${plain.toFixed(2)} ms, bwrap ${boxed.toFixed(2)} ms, ` +
      `over ${(boxed - plain).toFixed(2)} ms\n`;
    Deno.stdout.writeSync(new TextEncoder().encode(line));
  }
}
