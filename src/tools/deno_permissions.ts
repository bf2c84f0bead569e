/**
 * The Deno permission layer beneath ToolPolicy (DESIGN.md §1). It only asks
 * `Deno.permissions.querySync()`, which never prompts, and can only lower an action.
 * @module
 */
import type { PermissionKey, Resolution } from "./types.ts";

/** Which Deno permission each tool permission key needs, and the flag that grants it. */
const NEEDS: Partial<
  Record<PermissionKey, { name: "read" | "write" | "run" | "net"; flag: string }>
> = {
  read: { name: "read", flag: "--allow-read" },
  list: { name: "read", flag: "--allow-read" },
  edit: { name: "write", flag: "--allow-write" },
  bash: { name: "run", flag: "--allow-run" },
  web: { name: "net", flag: "--allow-net" },
  mcp: { name: "run", flag: "--allow-run" },
};

/**
 * A `deny` resolution when the process could never do what the key needs (e.g. bash without
 * `--allow-run`), else null. File keys are judged on the worktree: partial grants elsewhere
 * still allow the tool, and each path is checked by {@link assertPathAccess}.
 */
export function denoDenial(key: PermissionKey, worktree: string): Resolution | null {
  const need = NEEDS[key];
  if (!need) return null;
  const state = queryState(need.name, worktree);
  return state === "granted" ? null : { action: "deny", reason: `deno: no ${need.flag}` };
}

function queryState(
  name: "read" | "write" | "run" | "net",
  worktree: string,
): Deno.PermissionState {
  switch (name) {
    case "read":
    case "write":
      return Deno.permissions.querySync({ name, path: worktree }).state;
    case "run":
      return Deno.permissions.querySync({ name, command: "bash" }).state;
    case "net": {
      // Any net grant makes the web possible; a host list is judged per request by Deno.
      const all = Deno.permissions.querySync({ name }).state;
      return all === "granted" ? all : hasNetFlag() ? "granted" : all;
    }
  }
}

/** Whether some `--allow-net` list was given (querySync without host reads partial as prompt). */
function hasNetFlag(): boolean {
  return Deno.permissions.querySync({ name: "net", host: "127.0.0.1" }).state === "granted" ||
    Deno.permissions.querySync({ name: "net", host: "localhost" }).state === "granted";
}

/**
 * Throws a clear error when the process may not read or write `path`, naming the flag.
 * @example
 * ```ts
 * assertPathAccess("/", "read"); // fine under -A
 * ```
 */
export function assertPathAccess(path: string, access: "read" | "write"): void {
  const state = Deno.permissions.querySync({ name: access, path }).state;
  if (state === "granted") return;
  throw new Deno.errors.NotCapable(
    `Cannot ${access} "${path}": replio was started without ${access} access there: ` +
      `restart it with --allow-${access}=${path} (or a parent directory)`,
  );
}
