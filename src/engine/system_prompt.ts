/**
 * The context a turn starts from: the built-in system prompt, the mode's instructions and the
 * worktree's project instructions file (spec: `project_instructions`, default AGENTS.md).
 * @module
 */
import { join } from "../fs/path.ts";
import type { Config } from "../config/mod.ts";
import { isInside, resolveToolPath } from "../tools/mod.ts";

/** What the system prompt is built from. */
export interface SystemPromptInput {
  config: Config;
  worktree: string;
  mode: string;
  modeInstructions: string;
  /** Extra text for sub-agents (their agent type's prompt). */
  agentPrompt?: string;
  /** Receives what was skipped or cut (an instructions file outside the worktree). */
  onNotice?: (message: string) => void;
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
  const instructions = await readProjectInstructions(input.config, input.worktree, input.onNotice);
  if (instructions) parts.push(instructions);
  return parts.join("\n\n");
}

/**
 * The project instructions file, capped; empty when disabled, missing or unreadable. The file
 * is untrusted (it comes with the repository), so it is resolved first: a symlink out of the
 * worktree or something that is not a regular file is skipped, and `onNotice` says so.
 */
export async function readProjectInstructions(
  config: Config,
  worktree: string,
  onNotice: (message: string) => void = () => {},
): Promise<string> {
  const name = config.get("project_instructions");
  if (!name) return "";
  const file = await resolveToolPath(join(worktree, name), worktree);
  if (!isInside(file, worktree)) {
    onNotice(
      `Skipped the project instructions ${name}: they resolve to ${file}, outside the ` +
        `worktree: copy the file into the worktree to use it`,
    );
    return "";
  }
  const cap = config.get("project_instructions_max_chars");
  let text: string;
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) {
      onNotice(
        `Skipped the project instructions ${name}: it is not a regular file: make it a text file`,
      );
      return "";
    }
    text = await readHead(file, cap);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) return "";
    throw error;
  }
  if (cap > 0 && text.length > cap) {
    onNotice(
      `The project instructions ${name} are longer than project_instructions_max_chars ` +
        `(${cap}): only the start went into the prompt: shorten the file or raise the cap`,
    );
    text = text.slice(0, cap) + `\n... (${name} truncated at ${cap} chars)`;
  }
  return `Project instructions from ${name}:\n${text.trim()}`;
}

/**
 * The file's text, reading no more bytes than `cap` characters can take (a UTF-16 unit is at
 * most 3 UTF-8 bytes), plus one so an overlong file shows as longer than the cap.
 */
async function readHead(file: string, cap: number): Promise<string> {
  if (cap === 0) return await Deno.readTextFile(file);
  using handle = await Deno.open(file);
  const buffer = new Uint8Array(cap * 3 + 3);
  let filled = 0;
  while (filled < buffer.length) {
    const n = await handle.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return new TextDecoder().decode(buffer.subarray(0, filled));
}
