/**
 * The worktree of a command, resolved without loading config or plugins, so commands such as
 * `sessions list` work even when a plugin or the config is broken.
 * @module
 */
import { resolve } from "../fs/path.ts";
import { UsageError } from "./errors.ts";

/** The worktree: `--path` or the current directory, symlinks resolved; exit 2 when missing. */
export async function resolveWorktree(path: string | undefined): Promise<string> {
  const target = resolve(path ?? Deno.cwd());
  try {
    const real = await Deno.realPath(target);
    if (!(await Deno.stat(real)).isDirectory) throw new Deno.errors.NotFound();
    return real;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(
        `Cannot use --path "${target}": no such directory: pass an existing directory`,
      );
    }
    throw error;
  }
}
