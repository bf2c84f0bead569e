/**
 * `replio` with no subcommand: the interactive REPL in the worktree. Wires the workspace,
 * the provider and the root agent exactly as `replio run` does, and `/config` through
 * `replio config`.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { createProvider } from "../providers/mod.ts";
import { startRepl } from "../repl/mod.ts";
import { wantsColor } from "../ui/styles.ts";
import { fileWriter } from "../ui/writer.ts";
import { VERSION } from "../version.ts";
import { chooseSession } from "./choose_session.ts";
import { runConfigCommand } from "./config.ts";
import { createRootAgent } from "./start_agent.ts";
import { configFlags, openWorkspace } from "./workspace.ts";

/** Options of the bare `replio` command. */
export interface ReplOptions {
  path?: string;
  mode?: string;
  model?: string;
  baseUrl?: string;
  session?: string;
  continue?: boolean;
  resume?: boolean;
}

/** Runs the REPL; exit 0 when the person quits. */
export async function runRepl(options: ReplOptions): Promise<number> {
  const ws = await openWorkspace(options);
  const sessionId = await chooseSession(ws.worktree, options);
  // Escape codes only when both ends are a terminal: piped input reads as plain lines.
  const isTerminal = Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
  return await startRepl({
    version: VERSION,
    worktree: ws.worktree,
    config: ws.config,
    registry: ws.registry,
    mode: options.mode,
    sessionId,
    pickSession: options.resume === true,
    connect: (config, model) => createProvider(config, model ? { model } : {}),
    createAgent: (config, parts) => createRootAgent({ ...ws, config }, parts),
    loadConfig: () => loadConfig({ worktree: ws.worktree, flags: configFlags(options) }),
    runConfig: (action, key, value, global) =>
      runConfigCommand(action, key, value, { global, path: ws.worktree }),
  }, {
    isTerminal,
    color: isTerminal && wantsColor(Deno.stdout),
    out: fileWriter(Deno.stdout),
    width: () => isTerminal ? Deno.consoleSize().columns : 0,
  });
}
