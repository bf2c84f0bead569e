/**
 * Plugins: the API, the bundled list, and registry construction.
 * @module
 */
export type { Plugin, PluginTool } from "./api.ts";
export { defineTool } from "./api.ts";
export { BUNDLED_PLUGINS } from "./bundled.ts";
export { createRegistry } from "./load.ts";
export { planSandbox } from "./sandbox_bwrap.ts";
export { readCached } from "./plugin_cache.ts";
export { fetchAndPin } from "./plugin_fetch.ts";
export { parseManifest, PERMISSION_KINDS, type WorkerPermissions } from "./plugin_manifest.ts";
export { toJavaScript } from "./strip_types.ts";
export { PluginWorker } from "./worker_host.ts";
export {
  type LoadedPlugin,
  loadUserPlugins,
  type PluginEntry,
  PluginLoadError,
} from "./user_plugins.ts";
