/**
 * Whether an optional program runs here (`PROGRAM --version` succeeds): tests that compare with
 * it, or drive it, are skipped where it is missing; CI installs them all.
 * @module
 */

/** Whether `program --version` runs and succeeds. */
export async function hasProgram(program: string): Promise<boolean> {
  try {
    return (await new Deno.Command(program, { args: ["--version"], stdout: "null" }).output())
      .success;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
