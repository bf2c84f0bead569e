/**
 * The Deno permission layer beneath ToolPolicy (DESIGN.md §1). Each tool declares what it needs
 * of the process (`ToolSpec.deno`); this layer asks `Deno.permissions.querySync()`, which never
 * prompts, whether that was granted, and can only lower an action. A denial names the exact
 * flags to add, never a policy setting: no policy change can give the process a grant.
 * @module
 */
import type { DenoNeeds, PermissionKey, Resolution, ToolSpec } from "./types.ts";

/** What a tool that declares no {@link DenoNeeds} needs, judged by its permission key. */
const KEY_NEEDS: Partial<Record<PermissionKey, DenoNeeds>> = {
  read: { read: true },
  list: { read: true },
  edit: { read: true, write: true },
  bash: { read: true, run: ["setsid", "bash"] },
  web: { net: true },
};

/** The needs a tool declared, or those its permission key implies. */
export function denoNeedsOf(tool: Pick<ToolSpec, "deno" | "permission">): DenoNeeds {
  return tool.deno ?? KEY_NEEDS[tool.permission] ?? {};
}

/**
 * The flags this process lacks for `needs` (e.g. `--allow-run=git`); empty when it can serve
 * them. File access is judged on the worktree; `env` is optional and never missing.
 */
export function missingGrants(
  needs: DenoNeeds,
  worktree: string,
  modelHost: string | null = null,
): string[] {
  const missing: string[] = [];
  for (const name of ["read", "write"] as const) {
    if (needs[name] && query({ name, path: worktree }) !== "granted") {
      missing.push(`--allow-${name}=${worktree}`);
    }
  }
  const programs = (needs.run ?? []).filter((command) =>
    query({ name: "run", command }) !== "granted"
  );
  if (programs.length) missing.push(`--allow-run=${programs.join(",")}`);
  // The web tools reach any host, and their private-address check resolves names: a host list
  // cannot serve them.
  if (needs.net && query({ name: "net" }) !== "granted") missing.push("--allow-net");
  if (needs.model && !needs.net) {
    // An unknown host (base_url unset) is found at run time; any net grant may reach it.
    const reachable = modelHost === null
      ? netGrantKind() !== "none"
      : query({ name: "net", host: modelHost }) === "granted";
    if (!reachable) missing.push(`--allow-net${modelHost === null ? "" : `=${modelHost}`}`);
  }
  return missing;
}

/** The `host:port` of the configured model server, or null when it is found at run time. */
export function modelHostOf(baseUrl: string, provider: string): string | null {
  if (baseUrl && URL.canParse(baseUrl)) {
    const url = new URL(baseUrl);
    return url.port ? url.host : `${url.hostname}:${url.protocol === "https:" ? 443 : 80}`;
  }
  return provider === "ollama" ? "127.0.0.1:11434" : null;
}

/**
 * A `deny` resolution when the process could never serve the tool (e.g. git without
 * `--allow-run=git`), else null. The reason names the flags: `deno: needs --allow-run=git`.
 */
export function denoDenial(
  tool: Pick<ToolSpec, "deno" | "permission">,
  worktree: string,
  modelHost: string | null = null,
): Resolution | null {
  const missing = missingGrants(denoNeedsOf(tool), worktree, modelHost);
  if (missing.length === 0) return null;
  const flags = missing.join(" ");
  return { action: "deny", reason: `deno: needs ${flags}`, denoFlags: flags };
}

/**
 * Whether net is granted for every host, some hosts, or none. A host list cannot be listed, so
 * likely hosts are probed, `known` ones (e.g. the model's `host:port`) first.
 */
export function netGrantKind(known: readonly string[] = []): "all" | "hosts" | "none" {
  if (query({ name: "net" }) === "granted") return "all";
  // querySync without a host reads a host list as "prompt"; a probe of a likely host finds it.
  const probes = [...known, "127.0.0.1", "localhost", "api.openai.com"];
  return probes.some((host) => query({ name: "net", host }) === "granted") ? "hosts" : "none";
}

/** Whether reading the environment variable `name` is granted (asking never prompts). */
export function canReadEnv(name: string): boolean {
  return name !== "" && query({ name: "env", variable: name }) === "granted";
}

/** An environment variable when reading it is granted, else undefined (never prompts). */
export function readGrantedEnv(name: string): string | undefined {
  return canReadEnv(name) ? Deno.env.get(name) : undefined;
}

function query(descriptor: Deno.PermissionDescriptor): Deno.PermissionState {
  return Deno.permissions.querySync(descriptor).state;
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
