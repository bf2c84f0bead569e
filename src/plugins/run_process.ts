/**
 * Runs a shell command for a plugin (run_command, code_test, …) the one safe way: its own process
 * group, stdin closed, an environment without secrets (`childEnv`), stdout and stderr merged in
 * order, a timeout and the turn's AbortSignal ending the whole group, and output kept as head and
 * tail with an exact count of dropped lines.
 * @module
 */
import { Config } from "../config/mod.ts";
import { childEnv } from "./child_env.ts";
import { bwrapArgs, type SandboxPlan } from "./sandbox_bwrap.ts";
import { endAtExit, endGroup } from "./process_group.ts";
import {
  countNewlines,
  HEAD_LINES,
  LineCollector,
  nthNewlineFromEnd,
  TAIL_LINES,
} from "./head_tail.ts";
import { startShell } from "./spare_shell.ts";

/**
 * How long output is still read after the command exits: a background process (`server &`)
 * may keep the pipe open forever, and the result must not wait for it.
 */
const DRAIN_MS = 500;

/** Options for {@link runProcess}. */
export interface RunProcessOptions {
  /** Bash source, run as `bash -c`. */
  command: string;
  /** Absolute working directory. */
  cwd: string;
  /** The process group is killed after this many milliseconds. */
  timeoutMs: number;
  /** Aborting kills the process group (the turn's `ctx.signal`). */
  signal?: AbortSignal;
  /**
   * Decides which of replio's variables the command inherits (`shell_env.keep`, the
   * `*api_key_env` names; see `childEnv`); without it the built-in rules alone apply.
   */
  config?: Config;
  /** Extra environment variables over the inherited ones (always passed). */
  env?: Record<string, string>;
  /** Lines kept from the start; default {@link HEAD_LINES}. */
  headLines?: number;
  /** Lines kept from the end; default {@link TAIL_LINES}. */
  tailLines?: number;
  /** Run inside this OS sandbox (see `planSandbox`); default none. */
  sandbox?: SandboxPlan;
  /**
   * The command is stopped after this many milliseconds without output (a hung prompt, a
   * deadlock); 0 or absent: never.
   */
  idleTimeoutMs?: number | undefined;
  /**
   * Receives the output's bytes as they arrive, every one of them, undecoded (kept whole for
   * `tool_output`, shown live).
   */
  onBytes?: ((chunk: Uint8Array) => void) | undefined;
  /**
   * The line between head and tail, given the lines dropped, the first one's number (1-based)
   * and the lines in all; default `... (N lines omitted) ...`.
   */
  omittedNote?: ((omitted: number, firstOmitted: number, total: number) => string) | undefined;
}

/** How a command ended and what it printed. */
export interface ProcessResult {
  /** The exit code; `null` when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended the command, if any. */
  signal: Deno.Signal | null;
  /** Whether the timeout killed it. */
  timedOut: boolean;
  /** Whether it was stopped for printing nothing for `idleTimeoutMs`. */
  idleTimedOut?: boolean;
  /** The idle timeout it ran under, for `stopped after 30s without output`. */
  idleTimeoutMs?: number;
  /** Whether the AbortSignal killed it (or it never started because it was already aborted). */
  cancelled: boolean;
  /** Merged stdout and stderr, head and tail kept (see {@link keepHeadTail}). */
  output: string;
  /** Lines dropped between head and tail. */
  omittedLines: number;
  /** Lines shown cut at {@link MAX_LINE_CHARS}; absent when none was. */
  cutLines?: number;
  durationMs: number;
  /** The timeout it ran under, for messages such as `timed out after 5s`. */
  timeoutMs: number;
  /** How it ran: the sandbox's label (`bwrap(net=off, write=worktree)`) or `none`. */
  isolation: string;
}

/** Runs `command` under `bash -c` in its own process group and collects its output. */
export async function runProcess(options: RunProcessOptions): Promise<ProcessResult> {
  const started = performance.now();
  const lines = new LineCollector(
    options.headLines ?? HEAD_LINES,
    options.tailLines ?? TAIL_LINES,
    options.omittedNote,
  );
  const finish = (
    fields: Pick<ProcessResult, "exitCode" | "signal" | "timedOut" | "cancelled" | "idleTimedOut">,
  ) => {
    const kept = lines.finish();
    const cutLines = lines.cutLines();
    return {
      ...fields,
      ...(cutLines > 0 ? { cutLines } : {}),
      ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
      output: kept.text,
      omittedLines: kept.omittedLines,
      durationMs: Math.round(performance.now() - started),
      timeoutMs: options.timeoutMs,
      isolation: options.sandbox?.kind === "bwrap" ? options.sandbox.label : "none",
    };
  };
  if (options.signal?.aborted) {
    return finish({ exitCode: null, signal: null, timedOut: false, cancelled: true });
  }

  const child = await spawnGroup(options);
  endAtExit(child);

  let timedOut = false;
  let idleTimedOut = false;
  let cancelled = false;
  let ending: Promise<void> | undefined;
  const stop = (why: "timeout" | "idle" | "abort") => {
    if (ending) return;
    if (why === "timeout") timedOut = true;
    else if (why === "idle") idleTimedOut = true;
    else cancelled = true;
    ending = endGroup(child.pid);
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("abort");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // Output restarts the idle clock.
  const idleMs = options.idleTimeoutMs ?? 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdle = () => {
    if (idleMs <= 0 || ending) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop("idle"), idleMs);
  };
  armIdle();
  const { onBytes } = options;
  const onChunk = (chunk: Uint8Array) => {
    armIdle();
    onBytes?.(chunk);
  };

  const reader = child.stdout.getReader();
  const reading = readAll(reader, lines, idleMs > 0 || onBytes ? onChunk : undefined);
  const status = await child.status;
  // Leftovers of a command that exited by itself are background jobs it meant to keep.
  clearTimeout(timer);
  clearTimeout(idleTimer);
  options.signal?.removeEventListener("abort", onAbort);
  await ending;
  let drainTimer: ReturnType<typeof setTimeout> | undefined;
  const drained = await Promise.race([
    reading.then(() => true),
    new Promise<false>((resolve) => drainTimer = setTimeout(() => resolve(false), DRAIN_MS)),
  ]);
  clearTimeout(drainTimer);
  if (!drained) await reader.cancel();
  await reading;
  return finish({
    exitCode: status.signal ? null : status.code,
    signal: status.signal,
    timedOut,
    cancelled,
    ...(idleTimedOut ? { idleTimedOut } : {}),
  });
}

/** Spawns the command as the leader of a new process group, with a clear error if it cannot. */
async function spawnGroup(options: RunProcessOptions): Promise<Deno.ChildProcess> {
  try {
    // setsid makes bash (or bwrap) a session and group leader (pid = pgid): one kill reaches
    // every child.
    const plan = options.sandbox?.kind === "bwrap" ? options.sandbox : undefined;
    return startShell({
      prefix: plan ? ["bwrap", ...await bwrapArgs(plan, options.cwd)] : [],
      cwd: options.cwd,
      env: childEnv(options.config ?? Config.defaults(), options.env),
    }, options.command);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) {
      throw new Deno.errors.NotCapable(
        `Cannot run commands: replio may not run "setsid", which puts each command in its own ` +
          `process group: restart it with --allow-run (or add setsid and bash to its list)`,
      );
    }
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    const isDir = await Deno.stat(options.cwd).then((s) => s.isDirectory, () => false);
    throw new Deno.errors.NotFound(
      isDir
        ? `Cannot run commands: "setsid" or "bash" is not installed: install util-linux and bash`
        : `Cannot run in "${options.cwd}": no such directory: pass an existing directory`,
    );
  }
}

/**
 * Reads the output into `lines`. Once the head is full, a chunk's lines before its last
 * `tailLines` can never be shown: they are counted in the bytes and not decoded, so a command
 * printing gigabytes costs little more than the reading.
 */
async function readAll(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  lines: LineCollector,
  onChunk: ((chunk: Uint8Array) => void) | undefined,
): Promise<void> {
  let decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    onChunk?.(value);
    let bytes = value;
    const cut = lines.isHeadFull() ? nthNewlineFromEnd(value, lines.tailLines + 1) : -1;
    if (cut >= 0) {
      lines.skip(countNewlines(value, cut + 1));
      // Bytes the decoder held belong to a skipped line.
      decoder = new TextDecoder();
      bytes = value.subarray(cut + 1);
    }
    lines.push(decoder.decode(bytes, { stream: true }));
  }
  lines.push(decoder.decode());
}

/**
 * The first line of a command's result: `exit 0`, `timed out after 5s`, `killed by SIGKILL` or
 * `cancelled`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const ended = { exitCode: 2, signal: null, timedOut: false, cancelled: false, timeoutMs: 5000 };
 * assert.equal(describeExit(ended), "exit 2");
 * assert.equal(describeExit({ ...ended, exitCode: null, timedOut: true }), "timed out after 5s");
 * ```
 */
export function describeExit(
  result:
    & Pick<ProcessResult, "exitCode" | "signal" | "timedOut" | "cancelled" | "timeoutMs">
    & Partial<Pick<ProcessResult, "idleTimedOut" | "idleTimeoutMs">>,
): string {
  if (result.timedOut) return `timed out after ${result.timeoutMs / 1000}s`;
  if (result.idleTimedOut) {
    return `stopped after ${(result.idleTimeoutMs ?? 0) / 1000}s without output`;
  }
  if (result.cancelled) return "cancelled";
  if (result.signal) return `killed by ${result.signal}`;
  return `exit ${result.exitCode}`;
}

/**
 * A result as the model reads it: {@link describeExit}, then the output if there is any.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const ended = { exitCode: 0, signal: null, timedOut: false, cancelled: false, timeoutMs: 1000 };
 * assert.equal(formatProcessResult({ ...ended, output: "hi" }), "exit 0\nhi");
 * assert.equal(formatProcessResult({ ...ended, output: "" }), "exit 0");
 * ```
 */
export function formatProcessResult(
  result:
    & Pick<ProcessResult, "exitCode" | "signal" | "timedOut" | "cancelled" | "timeoutMs" | "output">
    & Partial<Pick<ProcessResult, "idleTimedOut" | "idleTimeoutMs">>,
): string {
  const status = describeExit(result);
  return result.output === "" ? status : `${status}\n${result.output}`;
}

export {
  HEAD_LINES,
  type HeadTail,
  keepHeadTail,
  MAX_LINE_CHARS,
  TAIL_LINES,
} from "./head_tail.ts";
