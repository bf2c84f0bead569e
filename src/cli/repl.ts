/**
 * `replio` with no subcommand: the interactive REPL in the worktree. Wires the workspace,
 * the provider and the root agent exactly as `replio run` does, and `/config` through
 * `replio config`.
 * @module
 */
import { loadConfig } from "../config/mod.ts";
import { createProvider } from "../providers/mod.ts";
import { noticeOnStderr } from "./notice.ts";
import { askFolderTrust, NoticeRelay, startRepl } from "../repl/mod.ts";
import { createStyles, wantsColor } from "../ui/styles.ts";
import { fileWriter } from "../ui/writer.ts";
import { VERSION } from "../version.ts";
import { chooseSession } from "./choose_session.ts";
import { runConfigCommand } from "./config.ts";
import { createRootAgent } from "./start_agent.ts";
import { configFlags, openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of the bare `replio` command. */
export interface ReplOptions {
  path?: string;
  mode?: string;
  model?: string;
  baseUrl?: string;
  session?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
  continue?: boolean;
  resume?: boolean;
  /** `replio "explain a.ts"`: the first message, sent once the REPL is up. */
  prompt?: string;
}

/** Runs the REPL; exit 0 when the person quits. */
export async function runRepl(options: ReplOptions): Promise<number> {
  // Escape codes only when both ends are a terminal: piped input reads as plain lines.
  const isTerminal = Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
  const color = isTerminal && wantsColor(Deno.stdout);
  // Warnings that come later on their own (an MCP server failing after start-up) are shown by
  // the REPL above its prompt once it runs; before and after, on stderr.
  const lateNotices = new NoticeRelay(noticeOnStderr);
  const ws = await openWorkspace({
    ...options,
    warn: (message) => lateNotices.send(message),
    // Piped input is messages, not answers: then the notice goes to stderr as headless.
    askTrust: isTerminal
      ? (trust) =>
        askFolderTrust(trust, {
          out: fileWriter(Deno.stdout),
          styles: createStyles(color),
          width: Deno.consoleSize().columns,
          readLine: readTerminalLine,
        })
      : undefined,
  });
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  // Reloading keeps this session's trust decision (--trust or "once" included).
  const trust = ws.config.trust.trusted;
  const sessionId = await chooseSession(ws.worktree, options);
  // From here the line editor answers SIGINT (as Ctrl-C) itself; SIGTERM and SIGHUP still end
  // replio through its exit path (the REPL's own SIGTERM handler restores the terminal first).
  using _lineEditorSigint = handleSignals(["SIGINT"], () => {});
  return await startRepl({
    version: VERSION,
    worktree: ws.worktree,
    config: ws.config,
    registry: ws.registry,
    notices: ws.notices ?? [],
    lateNotices,
    mode: options.mode,
    modelGiven: options.model !== undefined,
    sessionId,
    pickSession: options.resume === true,
    ...(options.prompt ? { firstPrompt: options.prompt } : {}),
    connect: (config, model) =>
      createProvider(config, {
        ...(model ? { model } : {}),
        notice: (message) => lateNotices.send(message),
      }),
    createAgent: (config, parts) => createRootAgent({ ...ws, config }, parts),
    loadConfig: () => loadConfig({ worktree: ws.worktree, flags: configFlags(options), trust }),
    runConfig: (action, key, value, global) =>
      runConfigCommand(action, key, value, { global, path: ws.worktree, trust }),
  }, {
    isTerminal,
    color,
    out: fileWriter(Deno.stdout),
    width: () => isTerminal ? Deno.consoleSize().columns : 0,
  });
}

/**
 * One line from the terminal before the line editor exists: the terminal is still in line
 * mode, so one read returns the line as typed, echoed and edited by the terminal itself.
 */
async function readTerminalLine(): Promise<string | null> {
  const buffer = new Uint8Array(1024);
  const read = await Deno.stdin.read(buffer);
  return read === null ? null : new TextDecoder().decode(buffer.subarray(0, read));
}
