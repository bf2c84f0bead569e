/**
 * Builds the registry: bundled plugins, then core tools, then user plugins.
 * @module
 */
import { ToolRegistry } from "../tools/mod.ts";
import type { Plugin } from "./api.ts";
import { BUNDLED_PLUGINS } from "./bundled.ts";
import { PluginLoadError } from "./user_plugins.ts";

/**
 * A registry holding every bundled plugin's tools plus `extra` plugins. A name clash (a user
 * plugin reusing a tool name or alias) stops start-up with a {@link PluginLoadError}.
 */
export function createRegistry(extra: readonly Plugin[] = []): ToolRegistry {
  const registry = new ToolRegistry();
  for (const plugin of [...BUNDLED_PLUGINS, ...extra]) {
    for (const { spec, handler } of plugin.tools) {
      try {
        registry.register(spec, handler);
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        throw new PluginLoadError(
          `Cannot load plugin "${plugin.name}": ${error.message}: rename the tool or drop the plugin`,
        );
      }
    }
  }
  return registry;
}
