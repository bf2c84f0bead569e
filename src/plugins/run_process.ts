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
import { startShell } from "./spare_shell.ts";

/** Lines kept from the start of long output: how the command began (what it ran, warnings). */
export const HEAD_LINES = 100;
/** Lines kept from the end of long output: errors and summaries land last. */
export const TAIL_LINES = 100;
/**
 * Characters kept of one line; with the head and tail sizes this keeps a full result under the
 * default `tool_max_result_chars`, so the registry's cap never cuts the tail off.
 */
export const MAX_LINE_CHARS = 400;
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

/** The index of the `n`-th line feed from the end of `bytes`, or -1. */
function nthNewlineFromEnd(bytes: Uint8Array, n: number): number {
  let at = bytes.length;
  for (let i = 0; i < n; i++) {
    at = at === 0 ? -1 : bytes.lastIndexOf(10, at - 1);
    if (at === -1) return -1;
  }
  return at;
}

/** Line feeds among the first `end` bytes. */
function countNewlines(bytes: Uint8Array, end: number): number {
  let count = 0;
  for (let at = bytes.indexOf(10); at !== -1 && at < end; at = bytes.indexOf(10, at + 1)) {
    count++;
  }
  return count;
}

/** The marker between head and tail, e.g. `... (1234 lines omitted) ...`. */
function omittedMarker(count: number): string {
  return `... (${count} ${count === 1 ? "line" : "lines"} omitted) ...`;
}

/** Head and tail of some text, as {@link keepHeadTail} returns them. */
export interface HeadTail {
  text: string;
  omittedLines: number;
}

/**
 * Keeps the first `headLines` and last `tailLines` lines of `text` with a marker counting the
 * lines dropped between them; long lines are cut to {@link MAX_LINE_CHARS}, and a carriage
 * return without a newline keeps only what follows it, as a terminal shows progress bars.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(keepHeadTail("1\n2\n3\n4\n5\n", { headLines: 1, tailLines: 2 }), {
 *   text: "1\n... (2 lines omitted) ...\n4\n5",
 *   omittedLines: 2,
 * });
 * ```
 */
export function keepHeadTail(
  text: string,
  { headLines = HEAD_LINES, tailLines = TAIL_LINES }: { headLines?: number; tailLines?: number } =
    {},
): HeadTail {
  const lines = new LineCollector(headLines, tailLines);
  lines.push(text);
  return lines.finish();
}

/** Streams text in and keeps head, tail and counts in bounded memory, whatever the volume. */
class LineCollector {
  readonly #head: string[] = [];
  readonly #tail: string[] = [];
  #omitted = 0;
  #pending = "";
  #pendingExtra = 0;
  /** A chunk ending in `\r` may continue with `\n`: decide when the next chunk arrives. */
  #heldReturn = false;
  /** Shown lines cut at {@link MAX_LINE_CHARS}: in the head, and per tail line. */
  #headCut = 0;
  readonly #tailCut: boolean[] = [];

  constructor(
    readonly headLines: number,
    readonly tailLines: number,
    readonly note: (omitted: number, firstOmitted: number, total: number) => string = omittedMarker,
  ) {}

  push(text: string): void {
    if (this.#heldReturn) {
      text = "\r" + text;
      this.#heldReturn = false;
    }
    if (text.endsWith("\r")) {
      text = text.slice(0, -1);
      this.#heldReturn = true;
    }
    const separator = /\r\n|\n|\r/g;
    let from = 0;
    for (const match of text.matchAll(separator)) {
      this.#append(text.slice(from, match.index));
      from = match.index + match[0].length;
      if (match[0] === "\r") this.#clearPending();
      else this.#commit();
    }
    this.#append(text.slice(from));
  }

  /** Whether every further line goes to the tail. */
  isHeadFull(): boolean {
    return this.#head.length >= this.headLines;
  }

  /**
   * Takes `commits` lines without their text (the head is full, and as many lines follow
   * as the tail holds): they and the tail so far are omitted, the line in progress with them.
   */
  skip(commits: number): void {
    this.#omitted += this.#tail.length + commits;
    this.#tail.length = 0;
    this.#tailCut.length = 0;
    this.#clearPending();
    this.#heldReturn = false;
  }

  /** Lines shown cut at {@link MAX_LINE_CHARS} (call after {@link finish}). */
  cutLines(): number {
    return this.#headCut + this.#tailCut.filter(Boolean).length;
  }

  finish(): HeadTail {
    if (this.#pending !== "" || this.#pendingExtra > 0) this.#commit();
    const kept = this.#omitted > 0
      ? [
        ...this.#head,
        this.note(
          this.#omitted,
          this.#head.length + 1,
          this.#head.length + this.#omitted + this.#tail.length,
        ),
        ...this.#tail,
      ]
      : [...this.#head, ...this.#tail];
    return { text: kept.join("\n"), omittedLines: this.#omitted };
  }

  #append(segment: string): void {
    const room = MAX_LINE_CHARS - this.#pending.length;
    if (segment.length <= room) {
      this.#pending += segment;
    } else {
      this.#pending += segment.slice(0, Math.max(room, 0));
      this.#pendingExtra += segment.length - Math.max(room, 0);
    }
  }

  #clearPending(): void {
    this.#pending = "";
    this.#pendingExtra = 0;
  }

  #commit(): void {
    const isCut = this.#pendingExtra > 0;
    const line = isCut
      ? `${this.#pending} ... (${this.#pendingExtra} chars omitted)`
      : this.#pending;
    this.#clearPending();
    if (this.#head.length < this.headLines) {
      this.#head.push(line);
      if (isCut) this.#headCut++;
      return;
    }
    this.#tail.push(line);
    this.#tailCut.push(isCut);
    if (this.#tail.length > this.tailLines) {
      this.#tail.shift();
      this.#tailCut.shift();
      this.#omitted++;
    }
  }
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
