/**
 * The entry to user plugins that costs nothing without them: the Worker host, the fetcher and
 * the type stripper load only when the config lists a plugin (most runs list none, and every
 * module loaded before the first model request delays it).
 * @module
 */
import type { LoadedPlugin, LoadPluginsOptions, PluginEntry } from "./user_plugins.ts";

/** Loads the configured user plugins (user_plugins.ts); none configured, nothing is loaded. */
export async function loadUserPlugins(
  entries: readonly PluginEntry[],
  options: LoadPluginsOptions,
): Promise<LoadedPlugin[]> {
  if (entries.length === 0) return [];
  const { loadUserPlugins: load } = await import("./user_plugins.ts");
  return await load(entries, options);
}
