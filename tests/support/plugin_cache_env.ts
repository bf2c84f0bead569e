/**
 * The environment that gives a replio child process its own user-plugin cache (under
 * XDG_CACHE_HOME), so tests neither read nor fill the machine's `~/.cache/replio`.
 * @module
 */
import { join } from "node:path";

/**
 * XDG_CACHE_HOME at `cache`, and DENO_DIR pinned where Deno keeps it now: Deno puts its own cache
 * under XDG_CACHE_HOME too, and would otherwise download replio's packages again.
 */
export function pluginCacheEnv(cache: string): Record<string, string> {
  const home = Deno.env.get("HOME") ?? "/root";
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const denoDir = Deno.env.get("DENO_DIR") ?? join(xdg || join(home, ".cache"), "deno");
  return { XDG_CACHE_HOME: cache, DENO_DIR: denoDir };
}
