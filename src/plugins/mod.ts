/**
 * Plugins: the API, the bundled list, and registry construction.
 * @module
 */
export type { Plugin, PluginTool } from "./api.ts";
export { defineTool } from "./api.ts";
export { BUNDLED_PLUGINS } from "./bundled.ts";
export { createRegistry } from "./load.ts";
export { planSandbox } from "./sandbox_bwrap.ts";
export type { WorkerPermissions } from "./plugin_manifest.ts";
export type { LoadedPlugin, PluginEntry } from "./user_plugins.ts";
export { loadUserPlugins } from "./load_user_plugins.ts";
