/**
 * The crash-consistency run (issue #23): `replio run` is killed with SIGKILL at KILLS moments
 * spread over the stream, a command, the session record of a large file_write and that file's
 * checkpoint and write; each session is then resumed and undone and checked
 * (bench/crash_trial.ts). Prints the figures and writes bench/results/crash.md.
 *
 * ```sh
 * deno task crash [KILLS] [--seed N] [--big-mb N]   # default 200 kills, a 16 MB file
 * ```
 * @module
 */
import { seededRandom } from "../tests/support/seeded_random.ts";
import { crashScenario } from "./crash_scenario.ts";
import { AIMS } from "./crash_aim.ts";
import { calibrate, runTrial, type TrialResult } from "./crash_trial.ts";

const USAGE = "Usage: deno task crash [KILLS] [--seed N] [--big-mb N]";

/** The value after `flag`, as a positive integer, or `fallback`. */
function option(args: string[], flag: string, fallback: number): number {
  const at = args.indexOf(flag);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${flag} needs a whole number: ${USAGE}`);
  }
  return value;
}

async function main(args: string[]): Promise<number> {
  const kills = Number(
    args.find((arg, i) => /^\d+$/.test(arg) && !args[i - 1]?.startsWith("--")) ?? 200,
  );
  const seed = option(args, "--seed", Math.floor(Math.random() * 2 ** 31));
  const bigMb = option(args, "--big-mb", 16);
  const print = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
  print(`crash: ${kills} kills, seed ${seed}, big file ${bigMb} MB`);
  const started = performance.now();
  const scenario = crashScenario(bigMb * 1024 * 1024);
  const calibration = await calibrate(scenario);
  print(`calibration: ${JSON.stringify(calibration)}`);
  const random = seededRandom(seed);
  const results: TrialResult[] = [];
  for (let i = 0; i < kills; i++) {
    const aim = AIMS[i % AIMS.length]!;
    const result = await runTrial(scenario, calibration, aim, random());
    results.push(result);
    print(
      `${String(i + 1).padStart(4)} ${aim.padEnd(6)} ${result.landing.padEnd(36)} ` +
        `undo: ${result.undo.padEnd(15)} ${result.violations.length ? "FAILED" : "ok"}`,
    );
    for (const violation of result.violations) print(`       ${violation}`);
  }
  const report = crashReport({
    kills,
    seed,
    bigMb,
    calibration,
    results,
    seconds: (performance.now() - started) / 1000,
  });
  await Deno.writeTextFile(new URL("./results/crash.md", import.meta.url), report);
  print(report);
  return results.some((r) => r.violations.length) ? 1 : 0;
}

/** The figures as Markdown. */
function crashReport(run: {
  kills: number;
  seed: number;
  bigMb: number;
  calibration: Awaited<ReturnType<typeof calibrate>>;
  results: TrialResult[];
  seconds: number;
}): string {
  const { results } = run;
  const landings = [...new Set(results.map((r) => r.landing))].sort();
  const rows = landings.map((landing) =>
    `| ${landing} | ${
      AIMS.map((aim) => results.filter((r) => r.aim === aim && r.landing === landing).length).join(
        " | ",
      )
    } | ${results.filter((r) => r.landing === landing).length} |`
  );
  const count = (test: (r: TrialResult) => boolean) => results.filter(test).length;
  const failed = count((r) => r.violations.length > 0);
  return `# Crash consistency

Command: \`deno task crash ${run.kills} --seed ${run.seed} --big-mb ${run.bigMb}\` (Deno ${Deno.version.deno}, ${
    new Date().toISOString().slice(0, 10)
  }, ${
    run.seconds.toFixed(0)
  } s). Spans from an uninterrupted run: ${run.calibration.deltas} text and
thinking events, ${run.calibration.toolWindowMs.toFixed(0)} ms of command.

| where the kill landed | ${AIMS.join(" | ")} | all |
| --- | ${AIMS.map(() => "---").join(" | ")} | --- |
${rows.join("\n")}
| all | ${AIMS.map((aim) => count((r) => r.aim === aim)).join(" | ")} | ${results.length} |

- Trials with a broken check: **${failed} of ${results.length}**.
- Session lines cut by the kill: ${
    count((r) => r.cutLine)
  }; every session loaded, before and after its resume.
- Temporary files of an atomic write left by the kill: ${
    count((r) => r.tempsAfterKill > 0)
  } trials; after the resume: ${count((r) => r.tempsAfterResume > 0)}.
- \`/undo\` after the resume: ${count((r) => r.undo === "restored")} restored the turn's files, ${
    count((r) => r.undo === "nothing to undo")
  } had nothing to undo (killed before the first checkpoint), ${
    count((r) => r.undo === "no session")
  } had no session.
`;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    Deno.stderr.writeSync(new TextEncoder().encode(`${error.message}\n`));
    Deno.exit(2);
  }
}
