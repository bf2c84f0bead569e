/**
 * Finds the processes a test started, wherever they ended up, by reading Linux's /proc: a
 * process that outlived its parent is re-parented (to init or a subreaper) and may sit in a
 * session of its own, so neither the process tree nor the process group still leads to it. What
 * it keeps is what it was started with: its environment, which every child inherits unless it
 * is cleared, and its argv. A test marks replio's environment with a variable of its own, which
 * replio passes on to every command, spare shell, sandbox and MCP server (less its secrets), and
 * puts unique words in the argv of what it asks replio to run; other tests running at the same
 * time use other marks, so none of their processes is counted.
 * @module
 */
import { HANG_MS } from "./deadline.ts";

/** The variable a test sets in replio's environment to mark it and everything it starts. */
export const MARK_VARIABLE = "REPLIO_TEST_MARK";

/** How a test's processes are recognised; a process matching any of these is one of them. */
export interface ProcessMark {
  /** The value of {@link MARK_VARIABLE} in the process's environment. */
  mark: string;
  /** Words of which any one, as a whole argv entry or inside one, marks a process. */
  words?: readonly string[];
  /**
   * Processes known by pid (from pid files), counted while they run whatever their environment
   * and argv: a check that does not rest on the mark reaching them.
   */
  pids?: readonly number[];
}

/** A live process (not a zombie), as /proc shows it. */
export interface LiveProcess {
  pid: number;
  ppid: number;
  /** The process group and session ids: a detached process has its own. */
  pgid: number;
  sid: number;
  argv: string[];
}

/** Every live process matching `mark`; processes that exit while they are read are skipped. */
export async function markedProcesses(mark: ProcessMark): Promise<LiveProcess[]> {
  const entry = `${MARK_VARIABLE}=${mark.mark}`;
  const found: LiveProcess[] = [];
  for await (const dir of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(dir.name)) continue;
    const pid = Number(dir.name);
    const read = await readProcess(pid);
    if (read === null) continue;
    const { process, environ } = read;
    const isMarked = environ.includes(entry) ||
      (mark.words ?? []).some((word) => process.argv.some((arg) => arg.includes(word))) ||
      (mark.pids ?? []).includes(pid);
    if (isMarked) found.push(process);
  }
  return found;
}

/** One line naming a process for a failure: pid, group, session, parent and its command line. */
export function describeProcess(p: LiveProcess): string {
  return `pid ${p.pid} (group ${p.pgid}, session ${p.sid}, parent ${p.ppid}): ${p.argv.join(" ")}`;
}

/** Options for {@link waitForNoneMarked}. */
export interface NoneMarkedOptions {
  /** Milliseconds before the survivors fail the wait; default the hang deadline. */
  ms?: number;
  /** Kill the survivors at the deadline (default true), so a failing test leaves none behind. */
  killLate?: boolean;
}

/**
 * Resolves once no process matches `mark`; at the deadline (which only a process that stays
 * reaches) rejects naming `what` and every survivor with its pid and command line, after
 * killing them unless told not to.
 */
export async function waitForNoneMarked(
  mark: ProcessMark,
  what: string,
  options: NoneMarkedOptions = {},
): Promise<void> {
  const ms = options.ms ?? HANG_MS;
  const deadline = Date.now() + ms;
  for (;;) {
    const left = await markedProcesses(mark);
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      if (options.killLate ?? true) killAll(left);
      throw new Error(
        `${what}: ${left.length} process(es) still running ${ms / 1000} s later:\n` +
          left.map(describeProcess).join("\n"),
      );
    }
    // The interval only sets how soon the end is seen, not whether.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** SIGKILL to each process; one that has gone meanwhile is no error. */
export function killAll(processes: readonly LiveProcess[]): void {
  for (const p of processes) {
    try {
      Deno.kill(p.pid, "SIGKILL");
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

/** Linux's flag for a kernel thread (include/linux/sched.h): it has no environment to read. */
const PF_KTHREAD = 0x00200000;

/**
 * A process's stat fields, argv and environment entries; null for a kernel thread, a zombie, a
 * process that exited while it was read, or one this user may not read (not this test's).
 */
async function readProcess(
  pid: number,
): Promise<{ process: LiveProcess; environ: string[] } | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // "pid (comm) state ppid pgrp session tty tpgid flags …": comm may hold spaces and parentheses.
    const [state, ppid, pgid, sid, , , flags] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (state === "Z" || state === "X" || (Number(flags) & PF_KTHREAD) !== 0) return null;
    const environ = (await Deno.readTextFile(`/proc/${pid}/environ`)).split("\0");
    const argv = (await Deno.readTextFile(`/proc/${pid}/cmdline`)).split("\0").filter(Boolean);
    return {
      process: { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), argv },
      environ,
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return null;
    }
    // ESRCH, which Deno gives no class of its own: the process has let go of its memory, so it
    // is exiting and runs nothing any more.
    if (error instanceof Error && error.message.includes("(os error 3)")) return null;
    throw error;
  }
}
