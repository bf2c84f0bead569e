/**
 * tools.allow and tools.deny name tools or their aliases; an entry that names neither does
 * nothing, which is dangerous for a deny list, so it is reported with the closest real name.
 * @module
 */
import { editDistance } from "../config/mod.ts";
import type { ToolRegistry } from "./registry.ts";

/** One name list the policy applies, with where it came from (`tools.deny`). */
export interface ToolNameList {
  source: string;
  names: readonly string[];
}

/**
 * A warning for each listed name that is no tool or alias, naming the closest tool.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ToolRegistry } from "./registry.ts";
 * const registry = new ToolRegistry();
 * registry.register({ name: "run_command", description: "", parameters: {}, category: "exec",
 *   permission: "bash", aliases: ["bash"] }, () => "");
 * assert.deepEqual(unknownToolNames(registry, [{ source: "tools.deny", names: ["bsh", "bash"] }]), [
 *   `tools.deny lists "bsh", which is no tool or alias, so it denies nothing: ` +
 *   `did you mean "bash" (run_command)? Fix the entry`,
 * ]);
 * ```
 */
export function unknownToolNames(
  registry: ToolRegistry,
  lists: readonly ToolNameList[],
): string[] {
  const known = registry.list().flatMap((tool) => [
    { name: tool.name, tool: tool.name },
    ...(tool.aliases ?? []).map((a) => ({
      name: typeof a === "string" ? a : a.name,
      tool: tool.name,
    })),
  ]);
  const warnings: string[] = [];
  for (const { source, names } of lists) {
    const effect = source.endsWith("deny") ? "denies nothing" : "allows nothing";
    for (const name of names) {
      if (registry.lookup(name)) continue;
      const closest = known
        .map((entry) => ({ ...entry, distance: editDistance(name, entry.name) }))
        .sort((a, b) => a.distance - b.distance)[0];
      const hint = closest === undefined
        ? "no tools are registered"
        : `did you mean "${closest.name}"${
          closest.name === closest.tool ? "" : ` (${closest.tool})`
        }?`;
      warnings.push(
        `${source} lists "${name}", which is no tool or alias, so it ${effect}: ${hint} Fix the entry`,
      );
    }
  }
  return warnings;
}
