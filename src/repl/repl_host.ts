/**
 * What the REPL is given: the host (src/cli/repl.ts wires the workspace, the provider and the
 * agent exactly as `replio run` does) and the terminal it talks to.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Agent } from "../engine/mod.ts";
import type { Provider } from "../providers/types.ts";
import type { Session } from "../session/mod.ts";
import type { ToolPolicy, ToolRegistry } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";
import type { TextWriter } from "../ui/writer.ts";
import type { NoticeRelay } from "./notice_relay.ts";

/** What the REPL is given by the command line (src/cli/repl.ts wires it). */
export interface ReplHost {
  version: string;
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  /** Start-up warnings to show under the banner (a tools.deny entry that names no tool). */
  notices?: readonly string[];
  /**
   * Warnings that arrive later on their own (an MCP server failing after start-up); the REPL
   * shows them while it runs.
   */
  lateNotices?: NoticeRelay;
  /** `--model` was given: it wins over the model a resumed session last used. */
  modelGiven?: boolean;
  /** `--mode`; undefined starts in the config's `mode`. */
  mode: string | undefined;
  /** `--session` or `--continue`: continue or create this session. */
  sessionId: string | undefined;
  /** `--resume`: choose the session from a list first (a terminal only). */
  pickSession: boolean;
  /** `replio "explain a.ts"`: sent as the first message, as if typed at the first prompt. */
  firstPrompt?: string;
  /** Connects to the model (`model` overrides the config's); throws with how to configure. */
  connect(config: Config, model: string | undefined): Promise<Provider>;
  /** Builds the root agent exactly as `replio run` does. */
  createAgent(
    config: Config,
    parts: { provider: Provider; session: Session; policy: ToolPolicy; sink: Sink },
  ): Agent;
  /** Re-reads the configuration files (command-line flags still win). */
  loadConfig(): Promise<Config>;
  /** `replio config get|set|unset` for this worktree; returns its exit code. */
  runConfig(
    action: string,
    key: string | undefined,
    value: string | undefined,
    global: boolean,
  ): Promise<number>;
}

/** The terminal the REPL talks to. */
export interface ReplTerminal {
  /** stdin is a terminal: full line editor, spinner, escape codes allowed. */
  isTerminal: boolean;
  color: boolean;
  out: TextWriter;
  /** Columns; 0 when output is not a terminal (nothing is wrapped). */
  width(): number;
}
