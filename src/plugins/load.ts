/**
 * Builds the registry: bundled plugins, then core tools, then user plugins.
 * @module
 */
import { ToolRegistry } from "../tools/mod.ts";
import type { Plugin } from "./api.ts";
import { BUNDLED_PLUGINS } from "./bundled.ts";

/** A registry holding every bundled plugin's tools plus `extra` plugins. */
export function createRegistry(extra: readonly Plugin[] = []): ToolRegistry {
  const registry = new ToolRegistry();
  for (const plugin of [...BUNDLED_PLUGINS, ...extra]) {
    for (const { spec, handler } of plugin.tools) registry.register(spec, handler);
  }
  return registry;
}
