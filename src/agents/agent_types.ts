/**
 * Agent types for delegate: the built-in `general` and `explore`, user types from
 * `.replio/agents/<name>.md` (YAML front matter + the body as system prompt) and config `agents`.
 * @module
 */
import { join } from "../fs/path.ts";
import { AGENT_SCHEMA, type Config, ConfigError, describeSchema } from "../config/mod.ts";
import type { Action } from "../tools/types.ts";
import { parseYaml } from "../config/plain_yaml.ts";

/** An agent type as delegate runs it. */
export interface AgentType {
  name: string;
  description: string;
  /** Where it was declared: built-in, a file path, or `config`. */
  source: string;
  model?: string;
  prompt: string;
  maxRounds?: number;
  toolPermission: Record<string, Action | string[]>;
  tools: { allow: string[]; deny: string[] };
}

/** The types every worktree has. */
export const BUILTIN_AGENT_TYPES: readonly AgentType[] = [
  {
    name: "general",
    description: "A general sub-agent with the parent's tools, for a self-contained sub-task",
    source: "built-in",
    prompt: "You are a sub-agent. Complete the delegated task and reply with a concise report " +
      "of what you found or changed; the lead agent only sees your final answer.",
    toolPermission: {},
    tools: { allow: [], deny: [] },
  },
  {
    name: "explore",
    description: "Read-only exploration: reads, lists and searches, never edits or runs commands",
    source: "built-in",
    prompt: "You are a read-only exploration sub-agent. Investigate with read, list and search " +
      "tools and reply with a concise, factual report with file paths and line numbers.",
    toolPermission: { edit: "deny", bash: "deny", mcp: "deny", delegate: "deny" },
    tools: { allow: [], deny: [] },
  },
];

/**
 * Every agent type: built-in, then config `agents`, then `.replio/agents/*.md` (later wins).
 * The files are read only when the config trusts the worktree: they are the repository's.
 * The YAML parser and the validator load only when there is something to parse.
 */
export async function loadAgentTypes(
  worktree: string,
  config: Config,
): Promise<Map<string, AgentType>> {
  const types = new Map(BUILTIN_AGENT_TYPES.map((t) => [t.name, t]));
  for (const [name, spec] of Object.entries(config.get("agents"))) {
    types.set(name, await fromSpec(name, spec as Record<string, unknown>, "config", ""));
  }
  if (!config.trust.trusted) return types;
  const dir = join(worktree, ".replio", "agents");
  let entries: Deno.DirEntry[] = [];
  try {
    entries = [...Deno.readDirSync(dir)].sort((a, b) => a.name.localeCompare(b.name));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.NotCapable)) {
      throw error;
    }
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".md")) continue;
    const file = join(dir, entry.name);
    const type = await parseAgentFile(entry.name.slice(0, -3), await Deno.readTextFile(file), file);
    types.set(type.name, type);
  }
  return types;
}

/**
 * Parses an agent file: `---` YAML front matter `---`, then the system prompt.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const type = await parseAgentFile("docs", "---\ndescription: Writes docs\n---\nYou write docs.", "docs.md");
 * assert.equal(type.prompt, "You write docs.");
 * ```
 */
export async function parseAgentFile(name: string, text: string, file: string): Promise<AgentType> {
  const match = text.match(/^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/);
  if (!match) {
    throw new ConfigError(
      `Cannot load agent type ${file}: no YAML front matter: start the file with "---", the settings, and "---"`,
    );
  }
  let front: unknown;
  try {
    front = await parseYaml(match[1]!) ?? {};
  } catch (error) {
    throw new ConfigError(
      `Cannot load agent type ${file}: invalid YAML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  return fromSpec(name, front as Record<string, unknown>, file, match[2]!.trim());
}

async function fromSpec(
  name: string,
  spec: Record<string, unknown>,
  source: string,
  body: string,
): Promise<AgentType> {
  const { Value } = await import("@sinclair/typebox/value");
  if (!Value.Check(AGENT_SCHEMA, spec)) {
    const first = Value.Errors(AGENT_SCHEMA, spec).First();
    throw new ConfigError(
      `Cannot load agent type "${name}" from ${source}: ${first?.path || "its settings"} must be ${
        first ? describeSchema(first.schema) : "valid"
      }: see docs/agents.md`,
    );
  }
  const prompt = body || (spec.prompt as string | undefined) || "";
  return {
    name,
    description: (spec.description as string | undefined) ?? "",
    source,
    ...(spec.model ? { model: spec.model as string } : {}),
    prompt,
    ...(spec.max_rounds ? { maxRounds: spec.max_rounds as number } : {}),
    toolPermission: (spec.tool_permission as Record<string, Action | string[]> | undefined) ?? {},
    tools: {
      allow: ((spec.tools as { allow?: string[] } | undefined)?.allow) ?? [],
      deny: ((spec.tools as { deny?: string[] } | undefined)?.deny) ?? [],
    },
  };
}

/** One line per type: name, source, description (`replio agents`, `/agents`). */
export function formatAgentTypes(types: readonly AgentType[]): string {
  const width = Math.max(...types.map((t) => t.name.length));
  return types.map((t) => `${t.name.padEnd(width)}  ${t.description}  (${t.source})`).join("\n") +
    "\n";
}
