/**
 * A sandboxed command's cost before and after a change, interleaved in one process so that load
 * from other processes falls on both alike: `true` through runProcess from three copies of the
 * code (a plain command, the checkout given as BEFORE, and this one), each copy with its own
 * spare shells, in the worktrees of bench/isolation_commands.ts (the 100,000-file one only when
 * BIG names an existing copy of it, since making one takes a while).
 *
 * ```sh
 * git archive <commit> | tar -x -C /var/tmp/before
 * deno run -A bench/isolation_before_after.ts /var/tmp/before [RUNS] [BIG]
 * ```
 * @module
 */
import { join } from "../src/fs/path.ts";
import type { ProcessResult, RunProcessOptions } from "../src/plugins/run_process.ts";

interface Copy {
  run(options: RunProcessOptions): Promise<ProcessResult>;
  keepSpareShells(): AsyncDisposable;
}

const [before, runsArg, big] = Deno.args;
if (!before) throw new TypeError("Usage: isolation_before_after.ts BEFORE [RUNS] [BIG]");
const runs = Number(runsArg ?? 30);
const here = new URL("..", import.meta.url).pathname;

/** The code at `root`, loaded as a module graph of its own (its own spare shell state). */
const copied: string[] = [];

async function load(root: string, copyOf?: string): Promise<Copy> {
  // The plain command needs a graph apart from "after" too, or their spares would interfere.
  const base = copyOf ? await Deno.makeTempDir({ prefix: "replio_plain_" }) : root;
  if (copyOf) copied.push(base);
  if (copyOf) await new Deno.Command("cp", { args: ["-r", join(copyOf, "src"), base] }).output();
  const run = await import(join(base, "src/plugins/run_process.ts"));
  const spare = await import(join(base, "src/plugins/spare_shell.ts"));
  return { run: run.runProcess, keepSpareShells: spare.keepSpareShells };
}

const copies = {
  plain: await load("", here),
  before: await load(before),
  after: await load(here),
};
type Name = keyof typeof copies;
const names = Object.keys(copies) as Name[];

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

async function folder(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix: "replio_ba_" }));
}

const small = await folder();
await new Deno.Command("git", { args: ["init", "-q", small] }).output();
await Deno.mkdir(join(small, ".replio"));
const bare = await folder();
const cases: [string, string, boolean][] = [
  ["small repository, started afresh", small, false],
  ["small repository, spare shells", small, true],
  ["folder without .git or .replio, spare shells kept", bare, true],
  ...big ? [["100,000-file repository, spare shells", big, true] as [string, string, boolean]] : [],
];
const lines: string[] = [];
for (const [what, worktree, spares] of cases) {
  const holders = spares ? names.map((name) => copies[name].keepSpareShells()) : [];
  const times: Record<Name, number[]> = { plain: [], before: [], after: [] };
  for (let i = -3; i < runs; i++) {
    for (const name of names) {
      // As for a model's reply: the spare the last command left is then ready.
      if (spares) await new Promise((resolve) => setTimeout(resolve, 30));
      const sandbox = { kind: "bwrap", network: false, worktree, label: "bench" } as const;
      const started = performance.now();
      const result = await copies[name].run({
        command: "true",
        cwd: worktree,
        timeoutMs: 10_000,
        ...name === "plain" ? {} : { sandbox },
      });
      if (result.exitCode !== 0) throw new Error(`true failed: ${result.output}`);
      if (i >= 0) times[name].push(performance.now() - started);
    }
  }
  for (const holder of holders) await holder[Symbol.asyncDispose]();
  const [plain, was, now] = names.map((name) => median(times[name]));
  lines.push(
    `| ${what} | ${plain!.toFixed(2)} | ${was!.toFixed(2)} (+${(was! - plain!).toFixed(2)}) | ` +
      `${now!.toFixed(2)} (+${(now! - plain!).toFixed(2)}) |`,
  );
}
await Deno.remove(small, { recursive: true });
await Deno.remove(bare, { recursive: true });
for (const dir of copied) await Deno.remove(dir, { recursive: true });
const load1 = Deno.loadavg().map((n) => n.toFixed(2)).join(", ");
Deno.stdout.writeSync(new TextEncoder().encode(
  `| Command \`true\` (median of ${runs}) | plain ms | before ms | after ms |\n| --- | --- | --- | --- |\n` +
    `${lines.join("\n")}\n\nLoad average at the end: ${load1}.\n`,
));
