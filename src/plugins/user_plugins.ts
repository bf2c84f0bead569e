/**
 * User plugins: modules named in config `plugins` (URLs, or paths relative to the worktree),
 * imported at start-up. Each exports `plugin: Plugin` built with the plugin API, so its tools
 * pass the same registry and policy as the bundled ones.
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "./api.ts";

const CATEGORIES = ["search", "read", "write", "exec", "ask", "todo", "delegate", "mcp"];
const PERMISSIONS = ["read", "list", "edit", "bash", "web", "mcp", "ask", "delegate"];

/** Raised when a user plugin cannot be loaded; the CLI maps it to exit 2. */
export class PluginLoadError extends Error {
  override name = "ConfigError";
}

/** Imports every configured plugin, in order; the first failure stops start-up with its fix. */
export async function loadUserPlugins(
  specifiers: readonly string[],
  worktree: string,
): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  for (const specifier of specifiers) {
    const url = /^[a-z][a-z0-9+.-]*:/i.test(specifier)
      ? specifier
      : pathToFileURL(isAbsolute(specifier) ? specifier : resolve(worktree, specifier)).href;
    let module: Record<string, unknown>;
    try {
      module = await import(url);
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new PluginLoadError(
        `Cannot load plugin "${specifier}": ${detail}: check the URL, and for remote plugins start replio with --allow-import`,
      );
    }
    plugins.push(checkPlugin(module.plugin, specifier));
  }
  return plugins;
}

function checkPlugin(value: unknown, specifier: string): Plugin {
  const plugin = value as Plugin | undefined;
  if (!plugin || typeof plugin.name !== "string" || !Array.isArray(plugin.tools)) {
    throw new PluginLoadError(
      `Cannot load plugin "${specifier}": it does not export \`plugin\` with a name and tools: see docs/plugins.md`,
    );
  }
  for (const tool of plugin.tools) {
    const spec = tool?.spec;
    const problem =
      !spec || typeof spec.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name)
        ? "a tool without a valid name"
        : typeof tool.handler !== "function"
        ? `tool "${spec.name}" without a handler`
        : typeof spec.description !== "string" || typeof spec.parameters !== "object"
        ? `tool "${spec.name}" without a description or parameters`
        : !CATEGORIES.includes(spec.category)
        ? `tool "${spec.name}" with an unknown category "${spec.category}"`
        : !PERMISSIONS.includes(spec.permission)
        ? `tool "${spec.name}" with an unknown permission "${spec.permission}"`
        : null;
    if (problem) {
      throw new PluginLoadError(
        `Cannot load plugin "${specifier}": ${problem}: see docs/plugins.md`,
      );
    }
  }
  return plugin;
}
