/**
 * `replio tools`: every registered tool with category, permission and the action the policy
 * resolves now (config and mode applied), with the reason; in a read-only mode, why each tool
 * that runs counts as read-only.
 * @module
 */
import type { AgentType } from "../agents/mod.ts";
import type { Config } from "../config/mod.ts";
import type { McpServers, McpServerStatus } from "../mcp/mod.ts";
import {
  type JsonSchema,
  type Policy,
  readOnlyEvidence,
  summarizeTool,
  toolIsolation,
  ToolPolicy,
  type ToolRegistry,
} from "../tools/mod.ts";
import { openWorkspace, toolNameWarnings } from "./workspace.ts";
import { EXIT } from "./errors.ts";

/** How the Deno layer's reasons start (`deno: needs --allow-run=git`). */
const DENO_REASON = "deno: ";

/** Options of `replio tools`. */
export interface ToolsCommandOptions {
  json?: boolean;
  mode?: string;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
  baseUrl?: string;
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
    /** How its calls run: `in-process`, `worker(…)`, `bwrap(…)` or `none`. */
    isolation: string;
    /** What the model reads, exactly as sent. */
    description: string;
    /** The JSON Schema of the arguments, as sent: scripts build calls from it. */
    parameters: JsonSchema;
    /** In a read-only mode (`plan`): why the tool counts as read-only, and so may run. */
    read_only?: string;
  }[];
  /** Tools a deny hides, with what hid them. */
  hidden: { name: string; reason: string }[];
  /** tools.allow / tools.deny entries that name no tool, each with the closest one. */
  warnings: string[];
  /** The configured MCP servers (absent when none are): `connecting` ones list no tools yet. */
  mcp_servers?: McpServerStatus[];
}

/** Every registered tool with the action `policy` resolves for it now. */
export function toolListing(
  ws: {
    registry: ToolRegistry;
    policy: Policy;
    worktree: string;
    config: Config;
    agentTypes?: ReadonlyMap<string, AgentType>;
    mcp?: McpServers | null | undefined;
  },
): ToolListing {
  const resolved = ws.registry.list().map((tool) => ({ tool, ...ws.policy.resolveStatic(tool) }));
  // A sub-agent's intersected policy is never listed; only a mode's own policy is read-only.
  const isReadOnly = ws.policy instanceof ToolPolicy && ws.policy.isReadOnly;
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
      isolation: toolIsolation(tool, ws.config, ws.worktree),
      description: tool.description,
      parameters: tool.parameters,
      ...(isReadOnly ? { read_only: readOnlyEvidence(tool).reason } : {}),
    };
  });
  const warnings = toolNameWarnings(ws);
  const servers = ws.mcp?.statuses();
  return {
    mode: ws.policy.mode,
    worktree: ws.worktree,
    tools,
    hidden,
    warnings,
    ...(servers ? { mcp_servers: servers } : {}),
  };
}

/** Prints the listing; exit 0. */
export async function listTools(options: ToolsCommandOptions): Promise<number> {
  const ws = await openWorkspace(options);
  const listing = toolListing(ws);
  const { tools: rows, hidden, warnings } = listing;
  let text: string;
  if (options.json) {
    text = JSON.stringify(listing, null, 2) + "\n";
  } else {
    // A tool the process cannot serve is shown with the flag that would serve it; a policy
    // deny stays a footnote, as spec/tools.md lists it.
    // A bundled tool is read-only by its permission key, which the row shows already: only a
    // tool's own evidence (an MCP server's readOnlyHint, a plugin's Worker) is worth a word.
    const ownEvidence = (row: { name: string; read_only?: string }) =>
      row.read_only !== undefined && ws.registry.lookup(row.name)?.tool.readOnly !== undefined;
    const unavailable = hidden.filter((h) => h.reason.startsWith(DENO_REASON));
    const denied = hidden.filter((h) => !h.reason.startsWith(DENO_REASON));
    text = warnings.map((w) => `warning: ${w}\n`).join("") +
      `mode: ${ws.policy.mode}  worktree: ${ws.worktree}\n` +
      formatColumns([
        ...rows.map((r) => [
          r.name,
          r.category,
          r.permission,
          `${r.action.padEnd(5)} (${r.reason}${
            ownEvidence(r) ? `; read-only: ${r.read_only}` : ""
          })`,
          `[${r.isolation}]`,
          r.short,
        ]),
        ...unavailable.map((u) => [u.name, `unavailable: ${u.reason.slice(DENO_REASON.length)}`]),
      ]) +
      (denied.length
        ? `hidden by policy: ${denied.map((h) => `${h.name} (${h.reason})`).join(", ")}\n`
        : "") +
      (rows.some((r) => r.read_only !== undefined)
        ? `read-only mode: only tools proven read-only run (bundled ones by permission key, MCP ` +
          `tools by readOnlyHint, plugin tools by what their Worker may do)\n`
        : "") +
      (listing.mcp_servers ?? []).map(describeServer).join("");
  }
  await Deno.stdout.write(new TextEncoder().encode(text));
  return EXIT.ok;
}

/** One line per MCP server: its state, and why it failed or exited. */
function describeServer(server: McpServerStatus): string {
  const state = server.state === "ready" ? `ready, ${server.tools} tools` : server.state;
  return `mcp server ${server.name}: ${state}${server.detail ? `: ${server.detail}` : ""}\n`;
}

/** Rows as columns two spaces apart, each as wide as its widest cell; the last is not padded. */
function formatColumns(rows: string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, i) => widths[i] = Math.max(widths[i] ?? 0, cell.length));
  }
  return rows.map((row) =>
    row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ")
      .trimEnd() + "\n"
  ).join("");
}
