/**
 * Process checks for tests that prove a process group was killed.
 * @module
 */

/**
 * How many live processes have `text` in their command line (pgrep -f; zombies have none). It
 * sees processes in any PID namespace, where a pid the command itself printed would not be the
 * host's.
 */
export async function processesMatching(text: string): Promise<number> {
  const { stdout } = await new Deno.Command("pgrep", { args: ["-f", "-c", text] }).output();
  return Number(new TextDecoder().decode(stdout).trim() || "0");
}

/** Whether `pid` still runs; a zombie (killed, not yet reaped by init) does not. */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z";
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Whether a live process (not a zombie) belongs to session `sid`: a terminal's processes, the
 * ones its hangup reaches.
 */
export async function sessionIsAlive(sid: number): Promise<boolean> {
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let stat: string;
    try {
      stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
    } catch (error) {
      // Ended while we looked.
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    // "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses.
    const [state, , , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(session) === sid && state !== "Z" && state !== "X") return true;
  }
  return false;
}
