/**
 * The soak (issue #23): a real REPL in tmux runs many turns against the scripted mock model
 * (bench/soak_script.ts), a turn at a time as a person types them, and the REPL process's
 * resident memory (VmRSS in /proc/PID/status) is read after every turn, once the prompt is back.
 * @module
 */
import { join } from "node:path";
import { loadSession } from "../src/session/load_session.ts";
import { startMockModel } from "../tests/support/mock_model.ts";
import { TmuxRepl } from "../tests/support/tmux_repl.ts";
import { tempWorktree } from "../tests/support/worktree.ts";
import { HeapInspector } from "./soak_heap.ts";
import { confirmationIn, CYCLE_TURNS, finishedLine, SOAK_FILES, soakTurn } from "./soak_script.ts";

/** What a soak measured and found. */
export interface SoakResult {
  /** VmRSS in kB after each turn: `rssKb[n - 1]` is after turn n. */
  rssKb: number[];
  /** Retained heap data (kB) after the turns of {@link SoakOptions.inspectAt}. */
  retainedKb: Map<number, number>;
  /** VmHWM at the end: the peak resident memory of the whole session. */
  peakKb: number;
  seconds: number;
  /** Compaction records in the session file. */
  compactions: number;
  /** Tool calls the session recorded, by tool. */
  toolCalls: Record<string, number>;
  /** Results that are errors (`Error: …`), by tool. */
  toolErrors: Record<string, number>;
  /** Broken expectations, one sentence each: the mock's, the session file's. */
  violations: string[];
}

/** The address `--inspect` prints on the REPL's screen. */
const INSPECTOR = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/;

/** The REPL's global config: commands run without asking, as a person who allowed them. */
const CONFIG = `tool_permission:
  bash: allow
dev:
  test_cmd: "echo tests pass"
`;

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** REPL turns to run: a multiple of the cycle, so the last one compacts. */
  turns: number;
  /** Told the resident size after each turn. */
  onTurn?: (turn: number, rssKb: number) => void;
  /**
   * Turns after which the heap's retained data is measured: the REPL then runs with
   * `--inspect` on 127.0.0.1, and each measure collects garbage (which moves the RSS after it).
   */
  inspectAt?: readonly number[];
  /** Deno flags for the REPL besides `-A` (e.g. `--v8-flags=...`). */
  denoFlags?: readonly string[];
}

/** Runs the soak; see the module doc. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { turns, onTurn = () => {}, inspectAt = [] } = options;
  if (turns < CYCLE_TURNS || turns % CYCLE_TURNS !== 0) {
    throw new RangeError(`Cannot soak ${turns} turns: give a multiple of ${CYCLE_TURNS}`);
  }
  const started = performance.now();
  await using wt = await tempWorktree({ ...SOAK_FILES, ".gitignore": ".test-xdg/\n" });
  await wt.write(".test-xdg/replio/config.yaml", CONFIG);
  await git(wt.path, "init", "-q");
  // git_commit commits as this person, in the repository's own config.
  await git(wt.path, "config", "user.name", "Soak");
  await git(wt.path, "config", "user.email", "soak@example.com");
  await git(wt.path, "add", "-A");
  await git(wt.path, "commit", "-q", "-m", "Soak project");
  const script = Array.from({ length: turns }, (_, i) => soakTurn(i + 1)).flat();
  await using mock = startMockModel(script);
  const inspect = inspectAt.length > 0 ? ["--inspect=127.0.0.1:0"] : [];
  await using repl = await TmuxRepl.start(
    wt.path,
    ["--base-url", mock.baseUrl, "--model", "mock-model"],
    { noColor: true, denoFlags: ["-A", ...inspect, ...(options.denoFlags ?? [])] },
  );
  const pid = Number((await repl.tmux("display-message", "-p", "-t", "0", "#{pane_pid}")).trim());
  // Closed before the REPL quits: a process with a debugger attached waits for it to leave.
  await using inspector = inspect.length
    ? await HeapInspector.connect(INSPECTOR.exec(await repl.screen())?.[0] ?? "")
    : null;
  const rssKb: number[] = [];
  const retainedKb = new Map<number, number>();
  for (let n = 1; n <= turns; n++) {
    await repl.enter(`turn ${n}: go on with the plan`);
    const question = confirmationIn(n);
    if (question !== null) {
      await repl.waitFor(question);
      await repl.enter("y");
    }
    await repl.waitFor(finishedLine(n));
    await repl.waitForPrompt();
    const kb = memoryKb(pid, "VmRSS");
    rssKb.push(kb);
    onTurn(n, kb);
    if (inspector && inspectAt.includes(n)) {
      retainedKb.set(n, Math.round(await inspector.retainedDataBytes() / 1024));
    }
  }
  const peakKb = memoryKb(pid, "VmHWM");
  await inspector?.[Symbol.asyncDispose]();
  await repl.keys("C-d");
  await repl.waitForExit();

  const violations = [...mock.violations];
  if (mock.remaining !== 0) {
    violations.push(`${mock.remaining} scripted replies were never asked for: the turns drifted`);
  }
  const session = await onlySession(wt.path);
  violations.push(...session.warnings);
  const toolCalls: Record<string, number> = {};
  const toolErrors: Record<string, number> = {};
  const count = (tally: Record<string, number>, name: string) =>
    tally[name] = (tally[name] ?? 0) + 1;
  for (const message of session.messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) count(toolCalls, call.function.name);
    }
    if (message.role === "tool" && message.content.startsWith("Error:")) {
      count(toolErrors, message.name);
    }
  }
  return {
    rssKb,
    retainedKb,
    peakKb,
    seconds: (performance.now() - started) / 1000,
    compactions: session.records.filter((r) => r.type === "compaction").length,
    toolCalls,
    toolErrors,
    violations,
  };
}

/** A memory field of /proc/PID/status, in kB. */
function memoryKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1];
  if (kb === undefined) throw new Error(`Cannot read ${field} of process ${pid}: it has exited`);
  return Number(kb);
}

/** The worktree's one root session (sub-agent sessions left out). */
async function onlySession(worktree: string) {
  const dir = join(worktree, ".replio", "sessions");
  const ids = (await Array.fromAsync(Deno.readDir(dir)))
    .map((entry) => entry.name)
    .filter((name) => name.startsWith("ses_") && name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length));
  if (ids.length !== 1) throw new Error(`Expected one session in the soak, found ${ids.length}`);
  return await loadSession(worktree, ids[0]!);
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command("git", {
    args,
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`git ${args[0]} failed: ${new TextDecoder().decode(stderr)}`);
}
