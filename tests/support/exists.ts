/**
 * Whether a path exists, a dangling symlink included: what an attack or a tool leaves behind.
 * @module
 */

/** True when `path` exists (as anything, a dangling link too), false when it does not. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
