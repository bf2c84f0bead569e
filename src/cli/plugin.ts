/**
 * `replio plugin add|list|remove|update`: URL plugins pinned in config. `add` fetches the module,
 * shows its manifest (tools, requested permissions) and, once the user approves, records the URL,
 * its `sha256-` integrity and the granted permissions; `update` does the same for a new version.
 * @module
 */
import { configPaths, loadConfig, readConfigFile, setConfigValue } from "../config/mod.ts";
import type { PluginEntry, WorkerPermissions } from "../plugins/mod.ts";
import { readCached } from "../plugins/plugin_cache.ts";
import { fetchAndPin } from "../plugins/plugin_fetch.ts";
import { parseManifest, PERMISSION_KINDS } from "../plugins/plugin_manifest.ts";
import { toJavaScript } from "../plugins/strip_types.ts";
import { PluginWorker } from "../plugins/worker_host.ts";
import { chosenConfigFile } from "./config.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** Options of `replio plugin`. */
export interface PluginCommandOptions {
  global?: boolean;
  /** Grant the requested permissions without asking (needed without a terminal). */
  yes?: boolean;
  path?: string;
}

/** Runs one plugin action; exit 0, 1 when refused or not found, 2 on bad usage. */
export async function runPluginCommand(
  action: string,
  target: string | undefined,
  options: PluginCommandOptions,
): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const file = chosenConfigFile(worktree, options.global ?? false);
  switch (action) {
    case "list":
      if (target !== undefined) throw usage(`"list" takes no argument`);
      return await listPlugins(worktree);
    case "add":
    case "update": {
      if (!target || !/^https?:\/\//.test(target)) throw usage(`"${action}" needs a plugin URL`);
      const entries = await fileEntries(file);
      const index = entries.findIndex((entry) => entryName(entry) === target);
      if (action === "update" && index < 0) {
        await writeErr(`replio: ${target} is not in ${file}: add it with \`replio plugin add\`\n`);
        return EXIT.failed;
      }
      const previous = index < 0 ? undefined : entries[index];
      const entry = await pin(target, previous, options);
      if (!entry) return EXIT.failed;
      if (index < 0) entries.push(entry);
      else entries[index] = entry;
      await setConfigValue(file, "plugins", entries);
      await writeOut(`${action === "add" ? "added" : "updated"} ${target} in ${file}\n`);
      return EXIT.ok;
    }
    case "remove": {
      if (!target) throw usage(`"remove" needs a plugin URL or path`);
      const entries = await fileEntries(file);
      const kept = entries.filter((entry) => entryName(entry) !== target);
      if (kept.length === entries.length) {
        await writeErr(`replio: ${target} is not in ${file}\n`);
        return EXIT.failed;
      }
      await setConfigValue(file, "plugins", kept);
      await writeOut(`removed ${target} from ${file}\n`);
      return EXIT.ok;
    }
    default:
      throw usage(`unknown action "${action}"`);
  }
}

function usage(problem: string): UsageError {
  return new UsageError(
    `Cannot run plugin: ${problem}: use add URL, list, remove URL|PATH or update URL`,
  );
}

function entryName(entry: PluginEntry): string {
  return typeof entry === "string" ? entry : entry.url;
}

async function fileEntries(file: string): Promise<PluginEntry[]> {
  const values = await readConfigFile(file);
  return [...((values.plugins as PluginEntry[] | undefined) ?? [])];
}

/**
 * Fetches the plugin, shows its manifest and asks for the permissions not yet granted; the new
 * entry, or null when it could not be fetched or the user declined (said on stderr).
 */
async function pin(
  url: string,
  previous: PluginEntry | undefined,
  options: PluginCommandOptions,
): Promise<PluginEntry | null> {
  let fetched: { source: string; integrity: string };
  try {
    fetched = await fetchAndPin(url);
  } catch (error) {
    // The fetcher's own failures (no network, an HTTP error) are plain Errors whose message says
    // what to do; any other class is a bug, left to the CLI's boundary.
    if (!(error instanceof Error) || error.constructor !== Error) throw error;
    await writeErr(`replio: Cannot ${previous ? "update" : "add"} the plugin: ${error.message}\n`);
    return null;
  }
  const { source, integrity } = fetched;
  const requested = parseManifest(source);
  const before = typeof previous === "object" ? previous.permissions ?? {} : {};
  const unchanged = typeof previous === "object" && previous.integrity === integrity;
  await writeOut(
    `${url}\n  integrity: ${integrity}${unchanged ? " (unchanged)" : ""}\n` +
      `  tools: ${await listTools(source, url)}\n` +
      `  requests: ${describePermissions(requested)}\n`,
  );
  const fresh = PERMISSION_KINDS.flatMap((kind) =>
    (requested[kind] ?? []).filter((item) => !(before[kind] ?? []).includes(item)).map((item) =>
      `${kind}=${item}`
    )
  );
  if (fresh.length && !(await approve(`Grant ${fresh.join(", ")}?`, options))) {
    await writeErr(`replio: not granted; ${url} was left as it was\n`);
    return null;
  }
  const permissions: WorkerPermissions = {};
  for (const kind of PERMISSION_KINDS) {
    if (requested[kind]?.length) permissions[kind] = requested[kind];
  }
  return {
    url,
    integrity,
    ...(Object.keys(permissions).length ? { permissions } : {}),
  };
}

/** The plugin's tool names, read from a Worker with no permissions at all. */
async function listTools(source: string, url: string): Promise<string> {
  const worker = new PluginWorker(await toJavaScript(source, url), {}, url);
  try {
    const ready = await worker.start();
    return ready.tools.map((t) => `${t.spec.name} (${t.spec.permission})`).join(", ") ||
      "(none)";
  } catch (error) {
    return `(cannot list them without permissions: ${(error as Error).message})`;
  } finally {
    worker.terminate();
  }
}

function describePermissions(permissions: WorkerPermissions): string {
  const parts = PERMISSION_KINDS.filter((kind) => permissions[kind]?.length).map((kind) =>
    `${kind}=${permissions[kind]!.join(", ")}`
  );
  return parts.length ? parts.join("; ") : "nothing";
}

async function approve(question: string, options: PluginCommandOptions): Promise<boolean> {
  if (options.yes) return true;
  if (!Deno.stdin.isTerminal()) {
    await writeErr(`replio: ${question} needs an answer: rerun with --yes to grant it\n`);
    return false;
  }
  const answer = prompt(`${question} [y/N]`);
  return /^y(es)?$/i.test(answer?.trim() ?? "");
}

/** The plugins that load, then those an untrusted folder's own config names (which do not). */
async function listPlugins(worktree: string): Promise<number> {
  const config = await loadConfig({ worktree });
  const lines: string[] = [];
  const describe = async (entry: PluginEntry, note: string) => {
    if (typeof entry === "string") {
      lines.push(`${entry}  (local path)${note}`);
      return;
    }
    const cached = (await readCached(entry.integrity, "source")) !== null;
    lines.push(
      `${entry.url}  ${entry.integrity}  grants: ${describePermissions(entry.permissions ?? {})}` +
        `  ${cached ? "cached" : "not cached"}${note}`,
    );
  };
  for (const entry of config.get("plugins")) await describe(entry, "");
  if (!config.trust.trusted) {
    const local = await readConfigFile(configPaths(worktree).local).catch(() => ({}));
    const ignored = ((local as Record<string, unknown>).plugins ?? []) as PluginEntry[];
    for (const entry of ignored) {
      await describe(entry, "  (not loaded: untrusted folder; replio trust)");
    }
  }
  await writeOut(lines.length ? lines.join("\n") + "\n" : "no plugins configured\n");
  return EXIT.ok;
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
