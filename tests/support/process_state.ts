/**
 * Process checks for tests that prove a process group was killed.
 * @module
 */

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
