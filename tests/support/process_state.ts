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
