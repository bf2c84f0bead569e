/**
 * `replio tools`: every registered tool with category, permission and the action the policy
 * resolves now (config and mode applied), with the reason.
 * @module
 */
import { summarizeTool } from "../tools/mod.ts";
import { openWorkspace } from "./workspace.ts";
import { EXIT } from "./errors.ts";

/** Options of `replio tools`. */
export interface ToolsCommandOptions {
  json?: boolean;
  mode?: string;
  path?: string;
}

/** Prints the listing; exit 0. */
export async function listTools(options: ToolsCommandOptions): Promise<number> {
  const ws = await openWorkspace({ path: options.path, mode: options.mode });
  const resolved = ws.registry.list().map((tool) => ({ tool, ...ws.policy.resolveStatic(tool) }));
  // spec/tools.md: a deny filters the tool from listings too; say what hid it, not the tool.
  const hidden = resolved.filter((r) => r.action === "deny").map(({ tool, reason }) => ({
    name: tool.name,
    reason,
  }));
  const rows = resolved.filter((r) => r.action !== "deny").map(({ tool, action, reason }) => {
    return {
      name: tool.name,
      category: tool.category,
      permission: tool.permission,
      action,
      reason,
      aliases: (tool.aliases ?? []).map((a) => typeof a === "string" ? a : a.name),
      short: summarizeTool(tool),
    };
  });
  let text: string;
  if (options.json) {
    text = JSON.stringify(
      { mode: ws.policy.mode, worktree: ws.worktree, tools: rows, hidden },
      null,
      2,
    ) + "\n";
  } else {
    const width = Math.max(...rows.map((r) => r.name.length), 4);
    text = `mode: ${ws.policy.mode}  worktree: ${ws.worktree}\n` +
      rows.map((r) =>
        `${r.name.padEnd(width)}  ${r.category.padEnd(8)} ${r.permission.padEnd(8)} ${
          r.action.padEnd(5)
        } (${r.reason})  ${r.short}`
      ).join("\n") + "\n" +
      (hidden.length
        ? `hidden by policy: ${hidden.map((h) => `${h.name} (${h.reason})`).join(", ")}\n`
        : "");
  }
  await Deno.stdout.write(new TextEncoder().encode(text));
  return EXIT.ok;
}
