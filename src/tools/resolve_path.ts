/**
 * Path resolution for tools: `~`, relative paths, `..` and symlinks are resolved before a
 * path is judged (DESIGN.md §3), so a link inside the worktree cannot smuggle a write outside.
 * @module
 */
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * Resolves `path` as the tools see it: `~` is the home directory, relative paths are under the
 * worktree, and symlinks are followed for the longest prefix that exists.
 */
export async function resolveToolPath(path: string, worktree: string): Promise<string> {
  const expanded = expandHome(path);
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(worktree, expanded);
  return await realpathOfLongestPrefix(absolute);
}

function expandHome(path: string): string {
  if (path !== "~" && !path.startsWith("~/")) return path;
  const home = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted"
    ? Deno.env.get("HOME")
    : undefined;
  if (!home) throw new Error(`Cannot resolve "${path}": HOME is not set: give an absolute path`);
  return join(home, path.slice(1));
}

/** Follows symlinks of the deepest existing ancestor; the rest of the path is kept as given. */
async function realpathOfLongestPrefix(absolute: string): Promise<string> {
  const rest: string[] = [];
  let current = absolute;
  while (true) {
    try {
      const real = await Deno.realPath(current);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch (error) {
      // NotADirectory: a file stands where the path wants a folder; its parent still resolves.
      const isMissing = error instanceof Deno.errors.NotFound ||
        error instanceof Deno.errors.NotADirectory || error instanceof Deno.errors.NotCapable;
      if (!isMissing) throw error;
      const parent = dirname(current);
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length).replace(/^[/\\]/, ""));
      current = parent;
    }
  }
}

/** Whether `path` (already resolved) is the worktree or inside it. */
export { isInside } from "../fs/is_inside.ts";
