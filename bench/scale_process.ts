/**
 * Running one replio command for the scaling benches and reading what it cost: wall time from
 * spawn to exit, and the peak resident memory and CPU time GNU time reports for it (the
 * command's own process, not the bench's). Commands run in a plain pipe or in a pseudo-terminal
 * (`script`), as a person at a terminal runs the REPL.
 * @module
 */

/** What one command cost. */
export interface ProcessCost {
  wallMs: number;
  /** Peak resident set of the command's largest process (GNU time's `%M`). */
  peakRssMb: number;
  /** User plus system CPU time. */
  cpuMs: number;
  code: number;
}

/** This checkout's replio. */
import { shellQuote } from "../tests/support/tmux_repl.ts";

export const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** How `deno task start` runs replio (`main`: another checkout's, to compare before and after). */
export function replio(main = MAIN): string[] {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    "-A",
    "--unstable-lazy-dynamic-imports",
    "--v8-flags=--expose-gc",
    main,
  ];
}

/** Where and how a measured command runs. */
export interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  /** The main.ts to run; default this checkout's. */
  main?: string | undefined;
}

/** A deadline only a hang reaches: every wait in these benches names what it waited for. */
const DEADLINE_MS = 120_000;
const GNU_TIME = "/usr/bin/time";
const TIME_FORMAT = "%M %U %S";

/** An environment without the person's own config, sessions or colours. */
export function benchEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_STATE_HOME: `${home}/.state`,
    XDG_CACHE_HOME: `${home}/.cache`,
    // Deno's own cache stays where it is: the npm packages are there, not in the bench's HOME.
    DENO_DIR: Deno.env.get("DENO_DIR") ??
      `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`,
    DENO_NO_UPDATE_CHECK: "1",
    TERM: "xterm-256color",
    NO_COLOR: "1",
    OPENAI_API_KEY: "sk-bench",
  };
}

/** Fails with `what` named when `promise` has not settled by the deadline (`ms` to change it). */
export async function withDeadline<T>(
  promise: Promise<T>,
  what: string,
  ms = DEADLINE_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Timed out after ${ms} ms waiting for ${what}`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks once that GNU time is there, so a bench fails with the fix instead of midway. */
export async function requireGnuTime(): Promise<void> {
  try {
    await Deno.stat(GNU_TIME);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(`Cannot measure memory: ${GNU_TIME} is missing: apt-get install time`);
  }
}

/** Reads the file GNU time wrote for one run. */
async function readCost(path: string, wallMs: number, code: number): Promise<ProcessCost> {
  const fields = (await Deno.readTextFile(path)).trim().split("\n").at(-1)!.split(" ");
  const [rssKb, user, system] = fields.map(Number) as [number, number, number];
  return { wallMs, peakRssMb: rssKb / 1024, cpuMs: (user + system) * 1000, code };
}

/** Runs `replio ARGS` in `cwd` to its end; stdout and stderr are returned. */
export async function runReplio(
  args: string[],
  options: RunOptions & { onSpawn?: () => void },
): Promise<ProcessCost & { stdout: string; stderr: string }> {
  const timeFile = await Deno.makeTempFile({ prefix: "replio_scale_time_" });
  try {
    const started = performance.now();
    const child = new Deno.Command(GNU_TIME, {
      args: ["-o", timeFile, "-f", TIME_FORMAT, ...replio(options.main), ...args],
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    options.onSpawn?.();
    const output = await withDeadline(child.output(), `"replio ${args.join(" ")}" to exit`);
    const wallMs = performance.now() - started;
    const decoder = new TextDecoder();
    return {
      ...await readCost(timeFile, wallMs, output.code),
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    await Deno.remove(timeFile);
  }
}

/** replio in a pseudo-terminal, its output collected as it arrives. */
export class PtyReplio implements AsyncDisposable {
  readonly started = performance.now();
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #timeFile: string;
  #output = "";
  #waiter: { pattern: RegExp; resolve: (ms: number) => void } | null = null;
  readonly #reading: Promise<void>;

  /** Use {@link PtyReplio.start}. */
  private constructor(child: Deno.ChildProcess, timeFile: string) {
    this.#child = child;
    this.#timeFile = timeFile;
    this.#stdin = child.stdin.getWriter();
    this.#reading = this.#read();
  }

  /** Starts `replio ARGS` under `script` (from util-linux), GNU time around replio alone. */
  static async start(args: string[], options: RunOptions): Promise<PtyReplio> {
    const timeFile = await Deno.makeTempFile({ prefix: "replio_scale_time_" });
    const command = [GNU_TIME, "-o", timeFile, "-f", TIME_FORMAT, ...replio(options.main), ...args];
    const child = new Deno.Command("script", {
      // -e: the program's exit code; -f: flush output as it comes; the log goes nowhere.
      args: ["-qfec", "exec " + command.map(shellQuote).join(" "), "/dev/null"],
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    return new PtyReplio(child, timeFile);
  }

  /** Milliseconds from launch until `pattern` appears in the output (`what` names it). */
  until(pattern: RegExp, what: string): Promise<number> {
    if (pattern.test(this.#output)) return Promise.resolve(performance.now() - this.started);
    const { promise, resolve } = Promise.withResolvers<number>();
    this.#waiter = { pattern, resolve };
    return withDeadline(promise, `${what}; the output so far:\n${this.#output}`);
  }

  /** Types into the terminal. */
  async type(text: string): Promise<void> {
    await this.#stdin.write(new TextEncoder().encode(text));
  }

  /** Ends input (Ctrl-D quits the REPL), waits for the exit and reads what the run cost. */
  async finish(): Promise<ProcessCost> {
    await this.type("\x04");
    await this.#stdin.close();
    const status = await withDeadline(this.#child.status, "the REPL to exit after Ctrl-D");
    await this.#reading;
    const wallMs = performance.now() - this.started;
    if (!status.success) throw new Error(`The REPL exited ${status.code}:\n${this.#output}`);
    return await readCost(this.#timeFile, wallMs, status.code);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch (error) {
      // Already gone: the usual case, after finish().
      if (!(error instanceof TypeError)) throw error;
    }
    await this.#child.status;
    await this.#reading;
    await Deno.remove(this.#timeFile).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
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

/** The median of `values` (the lower middle one of an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}
