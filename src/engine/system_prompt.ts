/**
 * The context a turn starts from: the built-in system prompt, the mode's instructions and the
 * worktree's project instructions file (spec: `project_instructions`, default AGENTS.md).
 * @module
 */
import { join } from "node:path";
import type { Config } from "../config/mod.ts";

/** What the system prompt is built from. */
export interface SystemPromptInput {
  config: Config;
  worktree: string;
  mode: string;
  modeInstructions: string;
  /** Extra text for sub-agents (their agent type's prompt). */
  agentPrompt?: string;
}

const BASE_PROMPT = `You are replio, an AI agent working in a terminal on the user's project.
You act only through the tools you are given; every call passes the user's permission policy.
- Read before you edit: use file_read, list_dir, glob and grep to learn the code.
- Prefer small, exact edits (file_edit) over rewriting files.
- When a tool result starts with "Error:", read it: it says what to do next. Do not repeat a
  call that was denied or declined; choose another approach or ask.
- Keep answers short and concrete; show paths relative to the worktree.`;

/** Builds the system message text. */
export async function buildSystemPrompt(input: SystemPromptInput): Promise<string> {
  const parts = [BASE_PROMPT, `Worktree: ${input.worktree}`];
  if (input.mode !== "default") parts.push(`Mode: ${input.mode}. ${input.modeInstructions}`.trim());
  const extra = input.config.get("system_prompt");
  if (extra) parts.push(extra);
  if (input.agentPrompt) parts.push(input.agentPrompt);
  const instructions = await readProjectInstructions(input.config, input.worktree);
  if (instructions) parts.push(instructions);
  return parts.join("\n\n");
}

/** The project instructions file, capped; empty when disabled, missing or unreadable. */
export async function readProjectInstructions(config: Config, worktree: string): Promise<string> {
  const name = config.get("project_instructions");
  if (!name) return "";
  const file = join(worktree, name);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) return "";
    if (error instanceof Deno.errors.IsADirectory) return "";
    throw error;
  }
  const cap = config.get("project_instructions_max_chars");
  const capped = cap > 0 && text.length > cap
    ? text.slice(0, cap) + `\n... (${name} truncated at ${cap} chars)`
    : text;
  return `Project instructions from ${name}:\n${capped.trim()}`;
}
