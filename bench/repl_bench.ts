/**
 * REPL benchmark: time from launch to a ready prompt, and the REPL's idle resident memory,
 * in a real pseudo-terminal (`script` from util-linux) against the mock model on 127.0.0.1.
 * Deno's hello world, launched the same way, is the reference. Runs are interleaved so load
 * from other processes spreads over every case alike. Writes bench/results/repl.md.
 *
 * ```sh
 * deno run -A bench/repl_bench.ts [RUNS]   # default 10 runs per case
 * ```
 * Targets: ready in under 250 ms, idle under 80 MB (Gemini CLI idles at about 217 MB).
 * @module
 */
import { join } from "node:path";
import { startMockModel } from "../tests/support/mock_model.ts";
import { shellQuote } from "../tests/support/tmux_repl.ts";

const RUNS = Number(Deno.args[0] ?? 10);
const WARMUP_RUNS = 2;
const MAIN = new URL("../main.ts", import.meta.url).pathname;
const RESULTS = new URL("./results/repl.md", import.meta.url);
/** Idle means nothing has happened for this long: timers settled, no pending reads. */
const IDLE_SETTLE_MS = 1000;
const DEADLINE_MS = 30_000;
const READY_TARGET_MS = 250;
const IDLE_TARGET_MB = 80;

/** A program running in a pseudo-terminal, its output collected as it arrives. */
class PtyRun {
  readonly started = performance.now();
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #output = "";
  #waiter: { pattern: RegExp; resolve: (ms: number) => void } | null = null;
  readonly #reading: Promise<void>;

  constructor(command: string[], cwd: string, env: Record<string, string>) {
    this.#child = new Deno.Command("script", {
      // -e: the program's exit code; -f: flush output as it comes; the log goes nowhere.
      args: ["-qfec", "exec " + command.map(shellQuote).join(" "), "/dev/null"],
      cwd,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#stdin = this.#child.stdin.getWriter();
    this.#reading = this.#read();
  }

  /** Milliseconds from launch until `pattern` appears in the output. */
  until(pattern: RegExp): Promise<number> {
    if (pattern.test(this.#output)) return Promise.resolve(performance.now() - this.started);
    const { promise, resolve, reject } = Promise.withResolvers<number>();
    const timer = setTimeout(
      () => reject(new Error(`Timed out waiting for ${pattern}; output:\n${this.#output}`)),
      DEADLINE_MS,
    );
    this.#waiter = {
      pattern,
      resolve: (ms) => {
        clearTimeout(timer);
        resolve(ms);
      },
    };
    return promise;
  }

  /** Types into the terminal. */
  async type(text: string): Promise<void> {
    await this.#stdin.write(new TextEncoder().encode(text));
  }

  /** Resident set size of the program (not of `script`), in MB. */
  async residentMb(): Promise<number> {
    const scriptPid = this.#child.pid;
    const children = await Deno.readTextFile(`/proc/${scriptPid}/task/${scriptPid}/children`);
    const pid = children.trim().split(/\s+/)[0];
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return kb / 1024;
  }

  /** Ends input (Ctrl-D for a REPL) and waits for the exit. */
  async finish(): Promise<void> {
    await this.type("\x04");
    await this.#stdin.close();
    const status = await this.#child.status;
    await this.#reading;
    if (!status.success) throw new Error(`Exit ${status.code}; output:\n${this.#output}`);
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stdout) {
      this.#output += decoder.decode(chunk, { stream: true });
      const waiter = this.#waiter;
      if (waiter && waiter.pattern.test(this.#output)) {
        this.#waiter = null;
        waiter.resolve(performance.now() - this.started);
      }
    }
  }
}

/** The prompt after the banner: the REPL is ready for input. */
const READY = /Ctrl-D quits\r?\n[^]*> /;
/** The footer of a finished turn followed by the next prompt. */
const TURN_DONE = /tokens \(\d+ in, \d+ out\)\r?\n[^]*> /;

interface Sample {
  readyMs: number;
  idleMb: number;
  afterTurnMb?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function max(values: number[]): number {
  return Math.max(...values);
}

const worktree = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_repl_bench_" }));
await using mock = startMockModel([
  { toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }] },
  { text: "The README says **hello**: it is a demo.\n\n- one\n- two\n" },
], { repeat: true });
try {
  await Deno.writeTextFile(join(worktree, "README.md"), "# Demo\n\nhello\n");
  const hello = join(worktree, "hello.ts");
  await Deno.writeTextFile(hello, 'Deno.stdout.writeSync(new TextEncoder().encode("hello\\n"));\n');
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? worktree,
    ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    TERM: "xterm-256color",
    NO_COLOR: "1",
    XDG_CONFIG_HOME: join(worktree, ".no-global"),
  };
  const deno = [Deno.execPath(), "run", "--no-prompt", "-A"];
  const configured = [...deno, MAIN, "--base-url", mock.baseUrl, "--model", "mock-model"];

  /** Milliseconds until a one-shot command has printed `done`. */
  const oneShot = async (command: string[], done: RegExp): Promise<number> => {
    const run = new PtyRun(command, worktree, env);
    const ms = await run.until(done);
    await run.finish();
    return ms;
  };
  const helloRun = () => oneShot([Deno.execPath(), "run", "--no-prompt", hello], /hello/);
  const toolRun = () => oneShot([...deno, MAIN, "tool", "list_dir", "{}"], /README\.md/);
  const replRun = async (command: string[], withTurn: boolean): Promise<Sample> => {
    const run = new PtyRun(command, worktree, env);
    const readyMs = await run.until(READY);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const sample: Sample = { readyMs, idleMb: await run.residentMb() };
    if (withTurn) {
      await run.type("what does the readme say?\r");
      await run.until(TURN_DONE);
      await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
      sample.afterTurnMb = await run.residentMb();
    }
    await run.finish();
    return sample;
  };

  for (let i = 0; i < WARMUP_RUNS; i++) {
    await helloRun();
    await toolRun();
    await replRun(configured, true);
    await replRun([...deno, MAIN], false);
  }
  const helloMs: number[] = [];
  const toolMs: number[] = [];
  const withModel: Sample[] = [];
  const noModel: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    helloMs.push(await helloRun());
    toolMs.push(await toolRun());
    withModel.push(await replRun(configured, true));
    noModel.push(await replRun([...deno, MAIN], false));
  }

  const loadAverage = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
  const helloMedian = median(helloMs);
  const timing = (ms: number[]) =>
    `${median(ms).toFixed(0)} | ${max(ms).toFixed(0)} | ${(median(ms) / helloMedian).toFixed(1)}`;
  const row = (name: string, samples: Sample[]) => {
    const after = samples.flatMap((s) => s.afterTurnMb === undefined ? [] : [s.afterTurnMb]);
    return `| ${name} | ${timing(samples.map((s) => s.readyMs))} | ${
      median(samples.map((s) => s.idleMb)).toFixed(1)
    } | ${after.length ? median(after).toFixed(1) : "—"} |`;
  };
  const readyMs = median(withModel.map((s) => s.readyMs));
  const idleMb = Math.max(
    median(withModel.map((s) => s.idleMb)),
    median(withModel.map((s) => s.afterTurnMb ?? 0)),
  );
  const report = `# REPL benchmark

Command: \`deno run -A bench/repl_bench.ts ${RUNS}\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} CPUs, ${
    new Date().toISOString().slice(0, 10)
  }; load average ${loadAverage} at the end).
Each run launches \`deno run --no-prompt -A main.ts\` in a pseudo-terminal (\`script\`), ${RUNS}
runs per case after ${WARMUP_RUNS} warm-up runs, interleaved with the reference. "Ready" is the
time from launch until the prompt after the banner is written. "Idle RSS" is the REPL process's
VmRSS ${IDLE_SETTLE_MS} ms after the prompt; "after a turn" is the same after one turn that
reads a file through a tool call and streams a markdown answer from the mock model. The machine is shared: every figure moves with its
load, the ratios to the references less so.

| case | ready ms (median) | ready ms (max) | × hello world | idle RSS MB | idle RSS MB after a turn |
|---|---|---|---|---|---|
| deno hello world in the same terminal (reference) | ${timing(helloMs)} | — | — |
| \`replio tool list_dir '{}'\` until its output (reference) | ${timing(toolMs)} | — | — |
${row("replio, model configured (`--base-url`, `--model`)", withModel)}
${row("replio, no model configured (Ollama probed, none answers)", noModel)}

Targets: ready in under ${READY_TARGET_MS} ms (${readyMs < READY_TARGET_MS ? "meets" : "misses"}: ${
    readyMs.toFixed(0)
  } ms), idle under ${IDLE_TARGET_MB} MB (${idleMb < IDLE_TARGET_MB ? "meets" : "misses"}: ${
    idleMb.toFixed(1)
  } MB). Gemini CLI idles at about 217 MB on these machines.
`;
  await Deno.writeTextFile(RESULTS, report);
  await Deno.stdout.write(new TextEncoder().encode(report));
} finally {
  await Deno.remove(worktree, { recursive: true });
}
