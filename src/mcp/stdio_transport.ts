/**
 * An MCP server's process on stdio, as the SDK's transport: spawned in a process group of its
 * own, JSON-RPC messages as lines on its stdin and stdout, the end of its stderr kept to explain a
 * failure, and stopped with its whole group (SIGTERM, then SIGKILL after a grace), so neither a
 * server that ignores SIGTERM nor a child it spawned outlives replio.
 * @module
 */
import { Buffer } from "node:buffer";
import { stripVTControlCharacters } from "node:util";
import { type JSONRPCMessage, ReadBuffer, serializeMessage } from "./_sdk.ts";
import type { ServerTransport } from "./types.ts";

/** How long a stopped server's group may take to go after SIGTERM before it gets SIGKILL. */
export const KILL_GRACE_MS = 1_000;

/** The end of a server's stderr kept to explain why it failed. */
const STDERR_TAIL_CHARS = 2_000;

/** How often the exit path looks whether stopped servers have gone, while it blocks. */
const EXIT_POLL_MS = 5;

/** What to run: the program, its arguments, its whole environment and its folder. */
export interface StdioServerCommand {
  command: string;
  args: readonly string[];
  /** The complete environment: nothing else of replio's is inherited. */
  env: Record<string, string>;
  cwd: string;
}

/** One server process and the MCP messages on its stdio. */
export class StdioProcessTransport implements ServerTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  readonly #command: StdioServerCommand;
  readonly #buffer = new ReadBuffer();
  #child: Deno.ChildProcess | null = null;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  #status: Deno.CommandStatus | null = null;
  #stderr = "";
  /** Set once the group was sent SIGKILL after the process ended: its id may be reused later. */
  #isGroupEnded = false;

  constructor(command: StdioServerCommand) {
    this.#command = command;
  }

  /** Spawns the server; rejects with Deno's error (`NotFound`, `NotCapable`) if it cannot. */
  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error("this MCP transport was started already"));
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(this.#command.command, {
        args: [...this.#command.args],
        env: this.#command.env,
        clearEnv: true,
        cwd: this.#command.cwd,
        stdin: "piped",
        stdout: "piped",
        // Piped, not inherited: a server's logs would land in the REPL or in `replio mcp`'s
        // client; the tail explains a failed start.
        stderr: "piped",
        // Its own process group (the pid is the group id), so stopping it reaches every process
        // it started, and a Ctrl-C in replio's terminal does not reach it behind replio's back.
        detached: true,
      }).spawn();
    } catch (error) {
      return Promise.reject(error);
    }
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const reading = Promise.all([this.#readMessages(child.stdout), this.#readStderr(child.stderr)])
      // A failed read ends nothing by itself: the server's exit does, just after.
      .then(() => undefined, (error) => this.onerror?.(error));
    void child.status.then(async (status) => {
      // The server has ended, and so has the connection: children it left behind go with it
      // (they may hold its stdout open), now, while the group id cannot be reused yet.
      this.#signal("SIGKILL");
      this.#status = status;
      this.#isGroupEnded = true;
      // Its stdin goes too (a restart opens a new one); a write still waiting on it fails. The
      // pipe may be broken already (the server exited mid-write): nothing is left to report.
      await this.#writer?.abort().catch(() => {});
      // What it wrote before it ended is still delivered, then the SDK fails what is pending.
      await reading;
      this.onclose?.();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.#writer) throw new Error("Not connected: start the transport first");
    // Ended, and the SDK not yet told: the close it is about to get fails this request with
    // "connection closed" and the exit code, like any request the exit cut short.
    if (this.#status) return;
    try {
      await this.#writer.write(new TextEncoder().encode(serializeMessage(message)));
    } catch (error) {
      // A server that died mid-write: its exit closes the connection, which fails the request
      // with "connection closed" and the exit code, as any other exit does.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Stops the server's group: SIGTERM, SIGKILL if it has not gone within the grace. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#isGroupEnded) return;
    // Not stdin first, as MCP suggests: a stuck server that reads nothing would hold the close.
    this.#signal("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) =>
      timer = setTimeout(resolve, KILL_GRACE_MS, "late")
    );
    try {
      if (await Promise.race([child.status, late]) === "late") this.#signal("SIGKILL");
    } finally {
      clearTimeout(timer);
    }
  }

  /** The process id, which is also its group's id; null before the start. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  describeExit(): string {
    const status = this.#status;
    if (status?.signal) return `was killed by ${status.signal}`;
    return status ? `exited with code ${status.code}` : "exited";
  }

  lastDiagnostic(): string {
    return stripVTControlCharacters(this.#stderr).trim().split("\n").at(-1)?.trim() ?? "";
  }

  /** Sends SIGTERM to the group, unless it has ended; the first half of {@link stopAllNow}. */
  terminateNow(): void {
    this.#signal("SIGTERM");
  }

  /** Sends SIGKILL to the group, unless it has ended; the second half of {@link stopAllNow}. */
  killNow(): void {
    this.#signal("SIGKILL");
  }

  /**
   * Whether the main process may still run. Read from /proc, as the exit path blocks the event
   * loop that would reap it: a zombie has gone. Without a read grant on /proc nothing can be
   * seen, and the exit path waits the whole grace.
   */
  mayBeRunning(): boolean {
    if (!this.#child || this.#isGroupEnded) return false;
    if (Deno.permissions.querySync({ name: "read", path: "/proc" }).state !== "granted") {
      return true;
    }
    try {
      const stat = Deno.readTextFileSync(`/proc/${this.#child.pid}/stat`);
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }

  async #readMessages(stdout: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stdout) {
      try {
        // ReadBuffer searches with Buffer's string indexOf, which a Uint8Array lacks.
        this.#buffer.append(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } catch (error) {
        // A line longer than the buffer holds: no message can be read from this server any more.
        this.onerror?.(error as Error);
        return await this.close();
      }
      for (let message; (message = this.#nextMessage()) !== null;) this.onmessage?.(message);
    }
  }

  /** The next whole message; a line that is no JSON-RPC message is reported and skipped. */
  #nextMessage(): JSONRPCMessage | null {
    for (;;) {
      try {
        return this.#buffer.readMessage();
      } catch (error) {
        // The SDK's own transport does the same: log noise on stdout ends no connection.
        this.onerror?.(error as Error);
      }
    }
  }

  /**
   * Signals the server's process group, unless it ended. Without an unrestricted --allow-run,
   * Deno lets replio signal only its own child: then the server is signalled, not its children.
   */
  #signal(signal: Deno.Signal): void {
    const child = this.#child;
    if (!child || this.#isGroupEnded) return;
    try {
      Deno.kill(-child.pid, signal);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      if (!(error instanceof Deno.errors.NotCapable)) throw error;
      try {
        child.kill(signal);
      } catch (error) {
        // "Child process has already terminated": nothing left to signal.
        if (!(error instanceof TypeError)) throw error;
      }
    }
  }

  async #readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    for await (const text of stderr.pipeThrough(new TextDecoderStream())) {
      this.#stderr = (this.#stderr + text).slice(-STDERR_TAIL_CHARS);
    }
  }
}

/**
 * Stops servers from a synchronous exit handler, all at once: SIGTERM to every group, a wait of
 * at most {@link KILL_GRACE_MS} (blocking: nothing else runs at exit) while any main process
 * still runs, then SIGKILL to every group, which also ends children that outlived their server.
 */
export function stopAllNow(transports: readonly StdioProcessTransport[]): void {
  transports.forEach((t) => t.terminateNow());
  const deadline = Date.now() + KILL_GRACE_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (transports.some((t) => t.mayBeRunning()) && Date.now() < deadline) {
    Atomics.wait(pause, 0, 0, EXIT_POLL_MS);
  }
  transports.forEach((t) => t.killNow());
}
