/**
 * `deno task bench:scale`: issue 26's cost curves, each bench with the arguments its figures in
 * docs/performance.md were measured with, then the page assembled from bench/results/. Each
 * writes its own results file and charts; together they take about 40 minutes on 2 quiet cores
 * (the session-length curve about 25 of them), and need about 4 GB in /tmp for the 1M-file tree.
 *
 *     deno task bench:scale [--only repo,session_length]
 *
 * Figures are only comparable within one quiet run: start it on an idle machine.
 * @module
 */

/** The curves, in the order they run, and how each is run. */
const CURVES: Record<string, string[]> = {
  binary: ["bench/scale_binary.ts"],
  repo: [
    "--v8-flags=--expose-gc",
    "bench/scale_repo.ts",
    "--runs",
    "3",
    "--sizes",
    "10000 100000 1000000",
  ],
  output: ["bench/scale_output.ts", "--runs", "3", "--sizes", "1 10 100 1000"],
  session_file: ["bench/scale_session_file.ts", "--runs", "5", "--sizes", "1 10 100"],
  session_length: [
    "bench/scale_session_length.ts",
    "--rounds",
    "10 100 400 1000 2000 3000",
    "--reps",
    "3",
  ],
};

function parseOnly(args: string[]): string[] {
  if (args.length === 0) return Object.keys(CURVES);
  const names = args[0] === "--only" && args.length === 2 ? args[1]!.split(",") : [];
  const unknown = names.filter((name) => !(name in CURVES));
  if (names.length === 0 || unknown.length > 0) {
    throw new TypeError(
      `Cannot run the scaling benches with "${args.join(" ")}": use --only followed by some of ` +
        `${Object.keys(CURVES).join(",")} (comma-separated), or no option for all`,
    );
  }
  return names;
}

async function run(args: string[]): Promise<void> {
  const root = new URL("..", import.meta.url).pathname;
  say(`deno run -A ${args.join(" ")}`);
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", ...args],
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`"deno run -A ${args.join(" ")}" failed with exit ${code}`);
}

function say(text: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`bench:scale: ${text}\n`));
}

if (import.meta.main) {
  try {
    for (const name of parseOnly(Deno.args)) await run(CURVES[name]!);
    await run(["bench/run_all.ts", "--assemble"]);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
