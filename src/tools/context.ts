/**
 * Builds the {@link ToolContext} handlers receive: path resolution with the Deno permission
 * check, the abort signal, and the host's services.
 * @module
 */
import type { Config } from "../config/mod.ts";
import { assertPathAccess } from "./deno_permissions.ts";
import { resolveToolPath } from "./resolve_path.ts";
import type { AskAnswer, AskRequest, ToolContext } from "./types.ts";

/** Options for {@link createToolContext}. */
export interface ToolContextOptions {
  config: Config;
  worktree: string;
  signal: AbortSignal;
  ask?: (request: AskRequest) => Promise<AskAnswer>;
  services?: Readonly<Record<string, unknown>>;
  /** Receives the tool's progress reports: its latest lines. */
  progress?: ((lines: readonly string[]) => void) | undefined;
}

/** A context whose `resolvePath` resolves `~`, `..` and symlinks and checks Deno access. */
export function createToolContext(options: ToolContextOptions): ToolContext {
  return {
    config: options.config,
    worktree: options.worktree,
    signal: options.signal,
    async resolvePath(path, access = "read") {
      const resolved = await resolveToolPath(path, options.worktree);
      assertPathAccess(resolved, access);
      return resolved;
    },
    ask: options.ask ?? (() => Promise.resolve(null)),
    services: options.services ?? {},
    ...(options.progress ? { progress: options.progress } : {}),
  };
}
