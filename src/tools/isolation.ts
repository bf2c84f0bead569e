/**
 * How a tool's calls run, as the audit, stream-json and the listings name it.
 * @module
 */
import type { Config } from "../config/config.ts";
import type { Tool } from "./types.ts";

/**
 * The tool's `isolation` (`bwrap(…)`, `none`, `worker(…)`), or `in-process` for replio's own
 * code; `none` when the tool cannot tell.
 */
export function toolIsolation(tool: Tool, config: Config, worktree: string): string {
  try {
    return tool.isolation?.(config, worktree) ?? "in-process";
  } catch {
    return "none";
  }
}
