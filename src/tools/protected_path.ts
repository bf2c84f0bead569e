/**
 * Protected paths (DESIGN.md §7, policy layer): the files that steer replio or git. A tool that
 * writes one could rewrite its own leash (`.replio/config.yaml`, a plugin) or make git run a
 * command (`.git/config`, hooks), so such a write is never approved without a person.
 * @module
 */
import { dirname, relative, sep } from "../fs/path.ts";
import { configPaths } from "../config/mod.ts";
import { isInside, resolveToolPath } from "./resolve_path.ts";

/** Folder names protected wherever they appear in a path: nested repositories have them too. */
const PROTECTED_ANYWHERE = [".git"];
/** Folders protected inside the worktree. */
const PROTECTED_IN_WORKTREE = [".replio"];

/**
 * The protected path a write to `paths` would touch, shown relative to the worktree, or null.
 * Pass both the path as given (absolute) and its symlink-resolved form: a `.git` that is a
 * link elsewhere is still the repository's, and a link into `.git` is too.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(protectedPath(["/w/.git/config"], "/w", []), ".git/config");
 * assert.equal(protectedPath(["/w/sub/.GIT/hooks/pre-commit"], "/w", []), "sub/.GIT/hooks/pre-commit");
 * assert.equal(protectedPath(["/w/.replio/config.yaml"], "/w", []), ".replio/config.yaml");
 * assert.equal(protectedPath(["/home/u/.config/replio/config.yaml"], "/w", ["/home/u/.config/replio"]), "/home/u/.config/replio/config.yaml");
 * assert.equal(protectedPath(["/w/src/git.ts"], "/w", []), null);
 * ```
 */
export function protectedPath(
  paths: readonly string[],
  worktree: string,
  globalConfigDirs: readonly string[],
): string | null {
  for (const path of paths) {
    const shown = isInside(path, worktree) ? relative(worktree, path) || "." : path;
    // Case-insensitive file systems (macOS, Windows) open .GIT/config as .git/config.
    const parts = path.toLowerCase().split(sep);
    if (parts.some((part) => PROTECTED_ANYWHERE.includes(part))) return shown;
    if (isInside(path, worktree)) {
      const first = relative(worktree, path).split(sep)[0]?.toLowerCase() ?? "";
      if (PROTECTED_IN_WORKTREE.includes(first)) return shown;
    }
    if (globalConfigDirs.some((dir) => isInside(path, dir))) return shown;
  }
  return null;
}

/**
 * The global config folder (`$XDG_CONFIG_HOME/replio` or `~/.config/replio`) as named and with
 * its symlinks resolved (dotfile setups link it); empty when the environment cannot be read.
 */
export async function globalConfigDirs(worktree: string): Promise<string[]> {
  const file = configPaths(worktree).global;
  if (file === null) return [];
  const dir = dirname(file);
  return [...new Set([dir, await resolveToolPath(dir, worktree)])];
}
