/**
 * `replio tools`: every registered tool with category, permission and the action the policy
 * resolves now (config and mode applied), with the reason.
 * @module
 */
import { type JsonSchema, type Policy, summarizeTool, type ToolRegistry } from "../tools/mod.ts";
import { openWorkspace } from "./workspace.ts";
import { EXIT } from "./errors.ts";

/** Options of `replio tools`. */
export interface ToolsCommandOptions {
  json?: boolean;
  mode?: string;
  path?: string;
}

/** What `replio tools --json` prints and `GET /v1/tools` returns. */
export interface ToolListing {
  mode: string;
  worktree: string;
  tools: {
    name: string;
    category: string;
    permission: string;
    action: string;
    reason: string;
    aliases: string[];
    short: string;
    /** What the model reads, exactly as sent. */
    description: string;
    /** The JSON Schema of the arguments, as sent: scripts build calls from it. */
    parameters: JsonSchema;
  }[];
  /** Tools a deny hides, with what hid them. */
  hidden: { name: string; reason: string }[];
}

/** Every registered tool with the action `policy` resolves for it now. */
export function toolListing(
  ws: { registry: ToolRegistry; policy: Policy; worktree: string },
): ToolListing {
  const resolved = ws.registry.list().map((tool) => ({ tool, ...ws.policy.resolveStatic(tool) }));
  // spec/tools.md: a deny filters the tool from listings too; say what hid it, not the tool.
  const hidden = resolved.filter((r) => r.action === "deny").map(({ tool, reason }) => ({
    name: tool.name,
    reason,
  }));
  const tools = resolved.filter((r) => r.action !== "deny").map(({ tool, action, reason }) => {
    return {
      name: tool.name,
      category: tool.category,
      permission: tool.permission,
      action,
      reason,
      aliases: (tool.aliases ?? []).map((a) => typeof a === "string" ? a : a.name),
      short: summarizeTool(tool),
      description: tool.description,
      parameters: tool.parameters,
    };
  });
  return { mode: ws.policy.mode, worktree: ws.worktree, tools, hidden };
}

/** Prints the listing; exit 0. */
export async function listTools(options: ToolsCommandOptions): Promise<number> {
  const ws = await openWorkspace({ path: options.path, mode: options.mode });
  const listing = toolListing(ws);
  const { tools: rows, hidden } = listing;
  let text: string;
  if (options.json) {
    text = JSON.stringify(listing, null, 2) + "\n";
  } else {
    text = `mode: ${ws.policy.mode}  worktree: ${ws.worktree}\n` +
      formatColumns(rows.map((r) => [
        r.name,
        r.category,
        r.permission,
        `${r.action.padEnd(5)} (${r.reason})`,
        r.short,
      ])) +
      (hidden.length
        ? `hidden by policy: ${hidden.map((h) => `${h.name} (${h.reason})`).join(", ")}\n`
        : "");
  }
  await Deno.stdout.write(new TextEncoder().encode(text));
  return EXIT.ok;
}

/** Rows as columns two spaces apart, each as wide as its widest cell; the last is not padded. */
function formatColumns(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]!.length))) ?? [];
  return rows.map((row) =>
    row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ")
      .trimEnd() + "\n"
  ).join("");
}
