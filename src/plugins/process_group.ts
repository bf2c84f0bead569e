/**
 * The lifetime of a command's process group: ended with SIGTERM and, after a grace, SIGKILL when
 * its turn is cancelled or its time is up, and with SIGKILL at once when replio exits while it
 * runs.
 * @module
 */

/** Time between SIGTERM and SIGKILL: long enough for a test runner to clean up. */
const KILL_GRACE_MS = 2_000;
/** How often a killed group is checked for survivors. */
const POLL_MS = 20;

/** Commands still running, by their process group's id, with their leader. */
const running = new Map<number, Deno.ChildProcess>();
let isEndingAtExit = false;

/**
 * Ends the command's group if replio exits while it runs (a signal that gave no time to cancel
 * it: SIGTERM to `replio mcp`, SIGHUP to the REPL). Its own group is out of reach of a signal
 * to replio, and only a sandbox dies with its parent: an unsandboxed command would run on.
 * SIGKILL at once, since `unload` cannot wait out a grace; the paths that can (a cancelled turn,
 * a timeout) end the group with {@link endGroup} before. Background jobs of a command that has
 * exited are not tracked: the command meant to keep them (`server &`).
 */
export function endAtExit(child: Deno.ChildProcess): void {
  if (!isEndingAtExit) {
    isEndingAtExit = true;
    // `unload` is the one event Deno.exit fires, and it allows no await.
    globalThis.addEventListener("unload", () => {
      for (const [pgid, leader] of running) killGroupNow(pgid, leader);
    });
  }
  running.set(child.pid, child);
  const forget = () => running.delete(child.pid);
  child.status.then(forget, forget);
}

/** SIGKILL to the group; without the grant to signal groups, to its leader alone. */
function killGroupNow(pgid: number, leader: Deno.ChildProcess): void {
  try {
    Deno.kill(-pgid, "SIGKILL");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    try {
      leader.kill("SIGKILL");
    } catch (error) {
      // "Child process has already terminated": nothing left to end.
      if (!(error instanceof TypeError)) throw error;
    }
  }
}

/** SIGTERM to the group, SIGKILL to whatever survives the grace period. */
export async function endGroup(pgid: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  if (await waitGroupGone(pgid, KILL_GRACE_MS)) return;
  signalGroup(pgid, "SIGKILL");
  await waitGroupGone(pgid, KILL_GRACE_MS);
}

/** Sends `signal` to every process of the group; false when none is left. */
function signalGroup(pgid: number, signal: Deno.Signal | 0): boolean {
  try {
    // Signal 0 only probes; Deno's type has no 0, but kill(2) accepts it.
    Deno.kill(-pgid, signal as Deno.Signal);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function waitGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!(await hasLiveMembers(pgid))) return true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return !(await hasLiveMembers(pgid));
}

/**
 * Whether a process of the group still runs. Killed orphans stay zombies until init reaps them
 * (seconds in some containers), and kill(2) counts zombies, so Linux's /proc is read instead.
 */
async function hasLiveMembers(pgid: number): Promise<boolean> {
  if (!signalGroup(pgid, 0)) return false;
  let entries;
  try {
    entries = await Array.fromAsync(Deno.readDir("/proc"));
  } catch (error) {
    // No /proc here, or no --allow-read for it: trust kill(2), zombies included.
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return true;
    }
    throw error;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat;
    try {
      stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // exited while we looked
      throw error;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}
