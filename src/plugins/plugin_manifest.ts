/**
 * A user plugin's manifest: the permissions its Worker asks for, declared in a `/*! replio-plugin
 * {…} *\/` comment at the top of the module so they are known before any of its code runs. This
 * module parses it, narrows it to what replio holds and the user granted, names the result for the
 * audit, says which tool permission keys such a Worker may be judged under, and whether its
 * tools are read-only.
 * @module
 */
import { isAbsolute, resolve } from "../fs/path.ts";
import type { Category, PermissionKey, ReadOnlyEvidence } from "../tools/types.ts";

/** The Deno permission kinds a plugin Worker can be given, each a list of names. */
export const PERMISSION_KINDS = ["read", "write", "net", "env", "run"] as const;

/** One kind of Deno permission. */
export type PermissionKind = (typeof PERMISSION_KINDS)[number];

/** What a plugin's Worker may do: paths, hosts, variable names, programs. Missing = nothing. */
export type WorkerPermissions = Partial<Record<PermissionKind, string[]>>;

/** Raised for a manifest that does not parse or names an unknown kind. */
export class ManifestError extends Error {
  override name = "ManifestError";
}

const HEADER = /\/\*!?\s*replio-plugin\b([\s\S]*?)\*\//;

/**
 * The permissions a plugin module declares in its `replio-plugin` comment; none without one.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const source = '/*! replio-plugin {"permissions": {"net": ["api.example.com"]}} *\/\n';
 * assert.deepEqual(parseManifest(source), { net: ["api.example.com"] });
 * assert.deepEqual(parseManifest("export const plugin = {};"), {});
 * ```
 */
export function parseManifest(source: string): WorkerPermissions {
  const match = HEADER.exec(source);
  if (!match) return {};
  let value: unknown;
  try {
    value = JSON.parse(match[1]!.trim() || "{}");
  } catch (error) {
    throw new ManifestError(
      `its replio-plugin comment is not JSON (${(error as Error).message}): ` +
        `write it as /*! replio-plugin {"permissions": {"read": ["data"]}} */`,
    );
  }
  const permissions = (value as { permissions?: unknown }).permissions ?? {};
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) {
    throw new ManifestError(`its replio-plugin "permissions" is not an object`);
  }
  const out: WorkerPermissions = {};
  for (const [kind, list] of Object.entries(permissions)) {
    if (!(PERMISSION_KINDS as readonly string[]).includes(kind)) {
      throw new ManifestError(
        `its replio-plugin permissions name "${kind}": use ${PERMISSION_KINDS.join(", ")}`,
      );
    }
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string" && item !== "")) {
      throw new ManifestError(
        `its replio-plugin permission "${kind}" is not a list of names: list each path, host, ` +
          `variable or program (there is no "all")`,
      );
    }
    if (list.length) out[kind as PermissionKind] = [...new Set(list as string[])];
  }
  return out;
}

/** Paths as Deno wants them: `~/…` under HOME, relative ones under the worktree. */
export function resolvePermissionPaths(
  permissions: WorkerPermissions,
  worktree: string,
  home: string | undefined,
): WorkerPermissions {
  const resolvePath = (path: string) =>
    path === "~" || path.startsWith("~/")
      ? resolve(home ?? "/nonexistent-home", path.slice(2))
      : isAbsolute(path)
      ? resolve(path)
      : resolve(worktree, path);
  return {
    ...permissions,
    ...(permissions.read ? { read: permissions.read.map(resolvePath) } : {}),
    ...(permissions.write ? { write: permissions.write.map(resolvePath) } : {}),
  };
}

/**
 * The declared permissions narrowed to what `granted` allows (the user's grant of a URL plugin;
 * undefined grants what is declared) and to what replio itself holds (a Worker cannot be given
 * more than its parent). Returns the result and what was dropped, for a warning.
 */
export function narrowPermissions(
  declared: WorkerPermissions,
  granted: WorkerPermissions | undefined,
): { permissions: WorkerPermissions; dropped: string[] } {
  const permissions: WorkerPermissions = {};
  const dropped: string[] = [];
  for (const kind of PERMISSION_KINDS) {
    for (const item of declared[kind] ?? []) {
      const approved = granted === undefined || (granted[kind] ?? []).includes(item);
      if (approved && replioHolds(kind, item)) (permissions[kind] ??= []).push(item);
      else dropped.push(`${kind}=${item}`);
    }
  }
  return { permissions, dropped };
}

function replioHolds(kind: PermissionKind, item: string): boolean {
  const descriptor: Deno.PermissionDescriptor = kind === "read" || kind === "write"
    ? { name: kind, path: item }
    : kind === "net"
    ? { name: "net", host: item }
    : kind === "env"
    ? { name: "env", variable: item }
    : { name: "run", command: item };
  return Deno.permissions.querySync(descriptor).state === "granted";
}

/** The `deno.permissions` of a Worker holding exactly `permissions`. */
export function workerPermissionOptions(permissions: WorkerPermissions): Deno.PermissionOptions {
  const list = (kind: PermissionKind) => permissions[kind]?.length ? permissions[kind] : false;
  return {
    read: list("read"),
    write: list("write"),
    net: list("net"),
    env: list("env"),
    run: list("run"),
    ffi: false,
    sys: false,
    import: false,
  } as Deno.PermissionOptions;
}

/**
 * How a Worker's calls are recorded: `worker(read=/w/data, net=api.example.com)`, kinds with no
 * grant left out, several names joined by `;`; `worker(none)` for a Worker that may do nothing.
 */
export function workerLabel(permissions: WorkerPermissions): string {
  const parts = PERMISSION_KINDS.filter((kind) => permissions[kind]?.length).map((kind) =>
    `${kind}=${permissions[kind]!.join(";")}`
  );
  return `worker(${parts.length ? parts.join(", ") : "none"})`;
}

/**
 * The tool permission keys a tool of this Worker may declare: the policy judges a tool by what
 * its Worker can do, so running programs needs `bash`, writing `edit` (or `bash`), the network
 * `web` (or `bash`). Null means any key.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(allowedKeys({ run: ["git"] }), ["bash"]);
 * assert.equal(allowedKeys({ read: ["/data"] }), null);
 * ```
 */
export function allowedKeys(permissions: WorkerPermissions): PermissionKey[] | null {
  const sets: PermissionKey[][] = [];
  if (permissions.run?.length) sets.push(["bash"]);
  if (permissions.write?.length) sets.push(["edit", "bash"]);
  if (permissions.net?.length) sets.push(["web", "bash"]);
  if (sets.length === 0) return null;
  return sets.reduce((a, b) => a.filter((key) => b.includes(key)));
}

/**
 * Whether a tool of this Worker is read-only, from what the Worker may do: one that may write or
 * run programs is not, whatever the tool says; one that may do neither and cannot reach the
 * network is; one that may reach the network is when its tool declares itself a reading one
 * (category `read` or `search`), since a request can change things on the far side.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(pluginReadOnly({ write: ["out"] }, "read").isReadOnly, false);
 * assert.equal(pluginReadOnly({ net: ["api.example.com"] }, "search").isReadOnly, true);
 * assert.equal(pluginReadOnly({ net: ["api.example.com"] }, "exec").isReadOnly, false);
 * assert.equal(pluginReadOnly({ read: ["/data"] }, "exec").isReadOnly, true);
 * ```
 */
export function pluginReadOnly(
  permissions: WorkerPermissions,
  category: Category,
): ReadOnlyEvidence {
  if (permissions.write?.length || permissions.run?.length) {
    const reach = permissions.write?.length ? "write files" : "run programs";
    return { isReadOnly: false, reason: `its plugin's Worker may ${reach}` };
  }
  if (!permissions.net?.length) {
    return {
      isReadOnly: true,
      reason: "its plugin's Worker may not write files, run programs or reach the network",
    };
  }
  return category === "read" || category === "search"
    ? {
      isReadOnly: true,
      reason: `its category is ${category} and its plugin's Worker may not write files or run ` +
        "programs",
    }
    : {
      isReadOnly: false,
      reason: `its plugin's Worker may reach the network and its category is ${category}, ` +
        "not read or search",
    };
}
