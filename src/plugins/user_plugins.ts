/**
 * User plugins: entries of config `plugins` (paths relative to the worktree, or URL entries
 * pinned by `replio plugin add`). Each runs in its own Deno Worker with only the permissions its
 * manifest declares, narrowed to what replio holds and the user granted; its tools cross the
 * boundary as messages and pass the same registry and policy as bundled ones. A plugin that
 * fails to load is reported and skipped; replio goes on without it.
 * @module
 */
import { isAbsolute, resolve } from "../fs/path.ts";
import type { ConfigValue } from "../config/mod.ts";
import type { PermissionKey, ToolHandler, ToolSpec } from "../tools/types.ts";
import type { Plugin, PluginTool } from "./api.ts";
import { loadPinnedSource } from "./plugin_fetch.ts";
import {
  allowedKeys,
  narrowPermissions,
  parseManifest,
  pluginReadOnly,
  resolvePermissionPaths,
  workerLabel,
  type WorkerPermissions,
} from "./plugin_manifest.ts";
import { stripTypes, toJavaScript } from "./strip_types.ts";
import { readCacheEntry, sha256Integrity, writeCached } from "./plugin_cache.ts";
import { type PluginReady, PluginWorker, type ReportedTool } from "./worker_host.ts";

const CATEGORIES = ["search", "read", "write", "exec", "ask", "todo", "delegate", "mcp"];
const PERMISSIONS = ["read", "list", "edit", "bash", "web", "mcp", "ask", "delegate"];

/** One entry of config `plugins`. */
export type PluginEntry = ConfigValue<"plugins">[number];

/** Raised when a user plugin cannot be registered (a name clash); the CLI maps it to exit 2. */
export class PluginLoadError extends Error {
  override name = "ConfigError";
}

/** Options for {@link loadUserPlugins}. */
export interface LoadPluginsOptions {
  worktree: string;
  /** Receives one line per plugin skipped or permission dropped. */
  warn: (message: string) => void;
}

/** A user plugin running in its Worker, with the permissions it was given. */
export interface LoadedPlugin extends Plugin {
  /** Where it came from, as config names it. */
  origin: string;
  permissions: WorkerPermissions;
  worker: PluginWorker;
}

/** Starts every configured plugin's Worker in parallel; those that fail are warned and skipped. */
export async function loadUserPlugins(
  entries: readonly PluginEntry[],
  options: LoadPluginsOptions,
): Promise<LoadedPlugin[]> {
  const loaded = await Promise.all(entries.map(async (entry) => {
    const origin = typeof entry === "string" ? entry : entry.url;
    // Collected per plugin and reported in config order, whichever Worker is ready first.
    const warnings: string[] = [];
    try {
      const plugin = await loadPlugin(entry, { ...options, warn: (m) => warnings.push(m) });
      return { plugin, warnings };
    } catch (error) {
      const detail = error instanceof SyntaxError
        ? `SyntaxError: ${error.message}`
        : error instanceof Error
        ? error.message
        : String(error);
      warnings.push(`Cannot load plugin "${origin}" (continuing without it): ${detail}`);
      return { plugin: null, warnings };
    }
  }));
  for (const { warnings } of loaded) warnings.forEach(options.warn);
  return loaded.flatMap(({ plugin }) => plugin ? [plugin] : []);
}

/** Reads, strips and starts one plugin; throws with the reason it cannot. */
export async function loadPlugin(
  entry: PluginEntry,
  options: LoadPluginsOptions,
): Promise<LoadedPlugin> {
  const { worktree } = options;
  const origin = typeof entry === "string" ? entry : entry.url;
  const { source, js } = await readCode(entry, options);
  const home = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted"
    ? Deno.env.get("HOME")
    : undefined;
  const declared = resolvePermissionPaths(parseManifest(source), worktree, home);
  const granted = typeof entry === "string"
    ? undefined
    : resolvePermissionPaths(entry.permissions ?? {}, worktree, home);
  const { permissions, dropped } = narrowPermissions(declared, granted);
  if (dropped.length) {
    options.warn(
      `Plugin "${origin}" runs without ${dropped.join(", ")}: ` +
        (granted
          ? "not granted when it was added (rerun `replio plugin add` to grant it)"
          : "replio itself was not started with it"),
    );
  }
  const worker = new PluginWorker(js, permissions, origin);
  const ready = await startOrRecall(worker, js, permissions, (file) =>
    options.warn(
      `Not using the cached tool list of plugin "${origin}": "${file}" was changed after replio ` +
        "wrote it: its Worker lists the tools again",
    ));
  const label = workerLabel(permissions);
  const keys = allowedKeys(permissions);
  const tools: PluginTool[] = [];
  for (const reported of ready.tools) {
    const problem = toolProblem(reported);
    if (problem) {
      worker.terminate();
      throw new Error(`${problem}: see docs/plugins.md`);
    }
    const spec = reported.spec as unknown as ToolSpec;
    if (keys && !keys.includes(spec.permission as PermissionKey)) {
      options.warn(
        `Cannot load tool "${spec.name}" of plugin "${origin}": it declares permission ` +
          `"${spec.permission}" but its Worker may ${describeReach(permissions)}, which the ` +
          `policy judges as ${keys.map((k) => `"${k}"`).join(" or ")}: declare one of those`,
      );
      continue;
    }
    const handler: ToolHandler = (args, ctx) =>
      worker.call(spec.name, args, {
        worktree: ctx.worktree,
        signal: ctx.signal,
        timeoutMs: ctx.config.get("tool_timeout") * 1000,
        abortGraceMs: ctx.config.get("plugin_abort_grace") * 1000,
      });
    // readOnly is set here, never taken from the plugin: a plugin's word does not make it so.
    const readOnly = pluginReadOnly(permissions, spec.category);
    tools.push({ spec: { ...spec, isolation: () => label, readOnly }, handler });
  }
  return { name: ready.name, tools, origin, permissions, worker };
}

/**
 * What the plugin's Worker reports. A plugin seen before with the same code and permissions
 * answers from the cache and its Worker starts on the first call: `new Worker` blocks the main
 * thread while it builds the isolate (15-70 ms here), which start-up should not pay for a tool
 * that may never be called. A new plugin is started and waited for, import errors and all.
 */
async function startOrRecall(
  worker: PluginWorker,
  js: string,
  permissions: WorkerPermissions,
  onChanged: (file: string) => void,
): Promise<PluginReady> {
  const key = await sha256Integrity(JSON.stringify([js, permissions]));
  const cached = await readCacheEntry(key, "tools");
  // An import that fails only now surfaces on the first call, as that call's error.
  if (cached.state === "hit") return JSON.parse(cached.text) as PluginReady;
  // A changed list could name other permissions or descriptions than the plugin reports.
  if (cached.state === "changed") onChanged(cached.file);
  const ready = await worker.start();
  await writeCached(key, "tools", JSON.stringify(ready));
  return ready;
}

/**
 * The plugin's source and the JavaScript that runs. What runs is what was pinned (or what the
 * file holds): a cached JavaScript changed since replio made it is refused with a note, and the
 * plugin is fetched and checked again (a local file is read again), then stripped afresh.
 */
async function readCode(
  entry: PluginEntry,
  options: LoadPluginsOptions,
): Promise<{ source: string; js: string }> {
  const origin = typeof entry === "string" ? entry : entry.url;
  const source = await readSource(entry, options);
  const stripped = await stripTypes(source, origin);
  if ("code" in stripped) return { source, js: stripped.code };
  options.warn(
    `Not running the cached JavaScript of plugin "${origin}": "${stripped.changed}" was changed ` +
      "after replio made it: " +
      (typeof entry === "string"
        ? "made it again from the plugin's file"
        : "fetched the plugin again, checked it against its pin and made it again"),
  );
  const fresh = typeof entry === "string"
    ? source
    : await loadPinnedSource(entry.url, entry.integrity, { refetch: true });
  return { source: fresh, js: await toJavaScript(fresh, origin) };
}

async function readSource(entry: PluginEntry, options: LoadPluginsOptions): Promise<string> {
  const { worktree } = options;
  if (typeof entry !== "string") {
    return await loadPinnedSource(entry.url, entry.integrity, { warn: options.warn });
  }
  if (/^https?:/i.test(entry)) {
    throw new Error(
      `a URL plugin needs a pinned integrity: run \`replio plugin add ${entry}\` and drop this ` +
        `entry`,
    );
  }
  const path = entry.startsWith("file:")
    ? new URL(entry).pathname
    : isAbsolute(entry)
    ? entry
    : resolve(worktree, entry);
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`no such file "${path}": fix the path in config \`plugins\``);
    }
    throw error;
  }
}

function toolProblem({ spec, hasHandler }: ReportedTool): string | null {
  const name = spec.name;
  return typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)
    ? "a tool without a valid name"
    : !hasHandler
    ? `tool "${name}" without a handler`
    : typeof spec.description !== "string" || typeof spec.parameters !== "object"
    ? `tool "${name}" without a description or parameters`
    : !CATEGORIES.includes(spec.category as string)
    ? `tool "${name}" with an unknown category "${spec.category}"`
    : !PERMISSIONS.includes(spec.permission as string)
    ? `tool "${name}" with an unknown permission "${spec.permission}"`
    : null;
}

function describeReach(permissions: WorkerPermissions): string {
  return [
    ...(permissions.run?.length ? ["run programs"] : []),
    ...(permissions.write?.length ? ["write files"] : []),
    ...(permissions.net?.length ? ["reach the network"] : []),
  ].join(" and ");
}
