/**
 * `@path` in a message: each mentioned file is read through the policy and appended to the
 * message, exactly as `/tool file_read` would read it (an activity line; a file outside the
 * worktree asks first).
 * @module
 */
import type { Config } from "../config/mod.ts";
import { resolve } from "../fs/path.ts";
import type { Session } from "../session/mod.ts";
import { createToolContext, invokeTool, type ToolPolicy, type ToolRegistry } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";
import { findMentions } from "./mentions.ts";

/** The tool `@path` attaches files with, as `/tool` would call it. */
const ATTACH_TOOL = "file_read";

/** What attaching reads through. */
export interface MentionReader {
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  policy: ToolPolicy;
  sink: Sink;
  session: Session;
  /** A call id of its own for each attachment (`mention_1`, …). */
  nextId(): string;
}

/**
 * The files `prompt` mentions, as blocks to append to it. A mention that names no file (a
 * handle, a folder) stays text, and a file the policy refuses is left out.
 */
export async function attachMentions(
  prompt: string,
  reader: MentionReader,
  signal: AbortSignal,
): Promise<string> {
  let attached = "";
  for (const path of findMentions(prompt)) {
    const isFile = await Deno.stat(resolve(reader.worktree, path)).then(
      (info) => info.isFile,
      () => false,
    );
    if (!isFile || signal.aborted) continue;
    const outcome = await invokeTool({
      registry: reader.registry,
      policy: reader.policy,
      ctx: createToolContext({ config: reader.config, worktree: reader.worktree, signal }),
      sink: reader.sink,
      audit: (record) => reader.session.appendPermission(record),
    }, { id: reader.nextId(), name: ATTACH_TOOL, arguments: { path } });
    if (!outcome.isError) {
      attached += `\n\n<attached path="${path}">\n${outcome.output}\n</attached>`;
    }
  }
  return attached;
}
