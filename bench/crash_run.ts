/**
 * One `replio run --output stream-json` child for the crash harness: its events are read as
 * they arrive, each with the time it was seen, and it can be killed with SIGKILL when a chosen
 * event arrives (at once, or after a delay), so a kill lands at a moment named by what the run
 * has done rather than by how fast the machine is.
 * @module
 */
import { concatBytes } from "../src/fs/concat_bytes.ts";
import { replioCommand } from "../tests/support/replio_process.ts";

/** One stream-json event and when this process read it (performance.now()). */
export interface SeenEvent {
  at: number;
  event: Record<string, unknown>;
}

/** How the run ended. */
export interface RunEnd {
  code: number;
  /** True when our SIGKILL ended it (it had not exited by itself). */
  killed: boolean;
  stderr: string;
}

/** A running `replio run` child whose stream-json events are collected. */
export class StreamedRun {
  readonly events: SeenEvent[] = [];
  readonly #child: Deno.ChildProcess;
  readonly #reading: Promise<void>;
  readonly #stderr: Promise<string>;
  #exited = false;
  #killed = false;
  #trigger: ((seen: SeenEvent) => boolean) | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waiters: { match: (seen: SeenEvent) => boolean; resolve: (seen: SeenEvent) => void }[] = [];

  /** Starts `replio ...args` in `cwd`. */
  constructor(args: string[], cwd: string) {
    const command = replioCommand(args, { cwd });
    this.#child = command.spawn();
    void this.#child.status.then(() => this.#exited = true);
    this.#reading = this.#read();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  /** Whether the run has exited or been killed. */
  get ended(): boolean {
    return this.#exited || this.#killed;
  }

  /** Kills the run (SIGKILL) when an event matching `match` is read, after `delayMs`. */
  killWhen(match: (seen: SeenEvent, events: readonly SeenEvent[]) => boolean, delayMs = 0): void {
    this.#trigger = (seen) => {
      if (!match(seen, this.events)) return false;
      this.killAfter(delayMs);
      return true;
    };
  }

  /** Kills the run (SIGKILL) `delayMs` from now; 0 kills at once. */
  killAfter(delayMs: number): void {
    if (delayMs <= 0) this.#kill();
    else this.#timer = setTimeout(() => this.#kill(), delayMs);
  }

  /** Resolves with the first event (already read or still to come) that matches. */
  waitFor(match: (seen: SeenEvent) => boolean): Promise<SeenEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    const { promise, resolve } = Promise.withResolvers<SeenEvent>();
    this.#waiters.push({ match, resolve });
    return promise;
  }

  /** Waits for the exit and for every byte the child wrote before it. */
  async finish(): Promise<RunEnd> {
    const status = await this.#child.status;
    // A run that ended before its moment came needs no kill.
    clearTimeout(this.#timer);
    await this.#reading;
    return { code: status.code, killed: this.#killed, stderr: await this.#stderr };
  }

  #kill(): void {
    // A run that ended by itself first is a trial whose moment came after the turn.
    if (this.#exited || this.#killed) return;
    this.#killed = true;
    this.#child.kill("SIGKILL");
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    // Pieces of the line being read: a big event spans many chunks, and joining them one by
    // one would copy it once per chunk.
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    for await (const chunk of this.#child.stdout) {
      let start = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
        pending.push(chunk.subarray(start, end));
        pendingBytes += end - start;
        const event = pendingBytes > BIG_LINE_BYTES
          ? headOf(decoder.decode(pending[0]!.subarray(0, HEAD_BYTES)))
          : parseLine(decoder.decode(concatBytes(pending)));
        pending = [];
        pendingBytes = 0;
        start = end + 1;
        if (event) this.#see(event);
      }
      // A line cut by the kill is no event: only whole lines were seen.
      if (start < chunk.length) {
        pending.push(chunk.slice(start));
        pendingBytes += chunk.length - start;
      }
    }
  }

  #see(event: Record<string, unknown>): void {
    const seen = { at: performance.now(), event };
    this.events.push(seen);
    if (this.#trigger?.(seen)) this.#trigger = null;
    const ready = this.#waiters.filter((waiter) => waiter.match(seen));
    this.#waiters = this.#waiters.filter((waiter) => !waiter.match(seen));
    for (const waiter of ready) waiter.resolve(seen);
  }
}

const NEWLINE = 0x0a;
/**
 * Events longer than this (a tool call carrying a large file) are read for their head only:
 * decoding and parsing megabytes here would hold this process while replio goes on, and the
 * kills aimed at what replio does next would come late.
 */
const BIG_LINE_BYTES = 1 << 20;
const HEAD_BYTES = 512;

function parseLine(line: string): Record<string, unknown> | null {
  return line.trim() === "" ? null : JSON.parse(line) as Record<string, unknown>;
}

/** `type`, `id` and `name` of an event line, which stream-json writes first, in this order. */
function headOf(head: string): Record<string, unknown> {
  const field = (name: string) => new RegExp(`"${name}":"([^"]*)"`).exec(head)?.[1];
  return { type: field("type"), id: field("id"), name: field("name"), cut: true };
}
