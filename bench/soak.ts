/**
 * The soak (issue #23): a REPL session of TURNS turns in tmux against the scripted mock model,
 * with tool calls of every kind and a compaction every four turns (bench/soak_script.ts), run
 * twice: once reading the REPL's resident size (VmRSS) after every turn, once asking its heap,
 * through `--inspect`, what data it retains after a full collection every 50 turns. Prints the
 * figures and writes bench/results/soak.md.
 *
 * ```sh
 * deno task soak [TURNS] [--v8-flags=...]   # default 500 turns; flags go to the REPL's deno
 * ```
 * @module
 */
import { runSoak, type SoakResult } from "./soak_session.ts";

const USAGE = "Usage: deno task soak [TURNS] [--v8-flags=...]";
/** The issue's bound: RSS after the last turn within 10% of RSS after turn 50. */
const BASELINE_TURN = 50;
const BOUND = 0.1;
/** Turns between retained-heap measures. */
const HEAP_EVERY = 50;

async function main(args: string[]): Promise<number> {
  const turns = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 500);
  const denoFlags = args.filter((arg) => arg.startsWith("--v8-flags="));
  const unknown = args.filter((arg) => !/^\d+$/.test(arg) && !arg.startsWith("--v8-flags="));
  if (unknown.length || turns < 2 * BASELINE_TURN || turns % HEAP_EVERY !== 0) {
    throw new RangeError(
      `Cannot run the soak with "${
        args.join(" ")
      }": ${USAGE} (TURNS a multiple of ${HEAP_EVERY}, at least ${2 * BASELINE_TURN})`,
    );
  }
  const print = (text: string) => Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
  print(`soak: ${turns} turns${denoFlags.length ? ` with ${denoFlags.join(" ")}` : ""}`);
  const resident = await runSoak({
    turns,
    denoFlags,
    onTurn: (n, kb) => n % HEAP_EVERY === 0 && print(`turn ${n}: RSS ${mb(kb)} MB`),
  });
  const heapTurns = Array.from({ length: turns / HEAP_EVERY }, (_, i) => (i + 1) * HEAP_EVERY);
  const retained = await runSoak({ turns, denoFlags, inspectAt: heapTurns });
  const report = soakReport({ turns, denoFlags, resident, retained, heapTurns });
  await Deno.writeTextFile(new URL("./results/soak.md", import.meta.url), report);
  print(report);
  return resident.violations.length || retained.violations.length ? 1 : 0;
}

function mb(kb: number): string {
  return (kb / 1024).toFixed(1);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The figures as Markdown. */
function soakReport(run: {
  turns: number;
  denoFlags: string[];
  resident: SoakResult;
  retained: SoakResult;
  heapTurns: number[];
}): string {
  const { turns, resident, retained } = run;
  const rss = (n: number) => resident.rssKb[n - 1]!;
  const window = (n: number) => median(resident.rssKb.slice(n - 10, n));
  const ratio = rss(turns) / rss(BASELINE_TURN) - 1;
  const first = retained.retainedKb.get(BASELINE_TURN)!;
  const last = retained.retainedKb.get(turns)!;
  const rows = run.heapTurns.map((n) =>
    `| ${n} | ${mb(rss(n))} | ${mb(window(n))} | ${mb(retained.retainedKb.get(n)!)} |`
  );
  const calls = Object.entries(resident.toolCalls).map(([tool, n]) => `${tool} ${n}`).join(", ");
  const flags = run.denoFlags.length ? ` ${run.denoFlags.join(" ")}` : "";
  return `# Soak

Command: \`deno task soak ${turns}${flags}\` (Deno ${Deno.version.deno}, ${
    new Date().toISOString().slice(0, 10)
  }; ${resident.seconds.toFixed(0)} s and ${
    retained.seconds.toFixed(0)
  } s). A REPL in tmux runs ${turns} turns typed one after the other against the mock model: ${calls} tool calls (git_commit confirmed with "y" as a person would), ${resident.compactions} compactions. Violations: ${
    [...resident.violations, ...retained.violations].length
  }.

| after turn | RSS MB | RSS MB, median of the 10 turns before | retained heap data MB |
| --- | --- | --- | --- |
${rows.join("\n")}

- RSS after turn ${turns}: **${mb(rss(turns))} MB**, after turn ${BASELINE_TURN}: **${
    mb(rss(BASELINE_TURN))
  } MB**: ${ratio >= 0 ? "+" : ""}${(ratio * 100).toFixed(1)}% (bound ±${BOUND * 100}%: ${
    Math.abs(ratio) <= BOUND ? "met" : "missed"
  }). Peak (VmHWM) ${mb(resident.peakKb)} MB.
- Retained heap data (a heap snapshot after a full collection, compiled code left out; a second run, with \`--inspect\`): ${
    mb(first)
  } MB after turn ${BASELINE_TURN}, ${mb(last)} MB after turn ${turns}: ${
    ((last - first) / (turns - BASELINE_TURN)).toFixed(2)
  } kB a turn.
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
