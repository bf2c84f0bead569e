/**
 * What slash commands see of the REPL: its current state and the actions they may take. The
 * REPL implements it; commands never reach into the REPL itself.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Session } from "../session/mod.ts";
import type { SessionApprovals, ToolPolicy, ToolRegistry } from "../tools/mod.ts";
import type { Styles } from "../ui/styles.ts";
import type { TerminalSink } from "../ui/terminal.ts";
import type { PickerTerminal } from "./list_picker.ts";
import type { PagerTerminal } from "./output_pager.ts";

/** One slash command: a row of the command table. */
export interface SlashCommand {
  /** The name without the slash. */
  name: string;
  /** How to call it, e.g. `/mode [name]`. */
  usage: string;
  /** One line for /help. */
  summary: string;
  /** Candidates for the first argument, for Tab. */
  complete?: (repl: ReplContext) => readonly string[];
  /** Candidates for the argument after the first one, `first`, for Tab. */
  completeNext?: (repl: ReplContext, first: string) => Promise<readonly string[]>;
  run(repl: ReplContext, args: string): void | Promise<void>;
}

/** The REPL as commands use it. */
export interface ReplContext {
  readonly worktree: string;
  readonly config: Config;
  readonly registry: ToolRegistry;
  /** The policy of the current mode. */
  readonly policy: ToolPolicy;
  /** The "always allow" rules accepted in this REPL. */
  readonly approvals: SessionApprovals;
  /** The current model, or null when none is reachable. */
  readonly model: string | null;
  /** Why there is no model, with how to configure one; "" when there is one. */
  readonly modelProblem: string;
  readonly session: Session;
  readonly sink: TerminalSink;
  readonly styles: Styles;
  readonly commands: readonly SlashCommand[];
  /** Terminal columns; 0 when output is not a terminal (nothing is wrapped or cut). */
  readonly width: number;
  /** Writes `text` wrapped to the terminal (continuation lines indented), each line styled. */
  print(text: string, style?: (line: string) => string, indent?: string): void;
  /** Writes markdown (a tool description) reflowed and rendered to the terminal width. */
  printMarkdown(text: string): void;
  /** Writes a `! …` error line. */
  printError(message: string): void;
  /** Runs `work` with Ctrl-C aborting its signal; the prompt waits for it. */
  cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** Switches the mode; throws a ConfigError naming the known modes. */
  setMode(name: string): void;
  /** Model names the endpoint listed when last asked (for Tab); [] before that. */
  readonly knownModels: readonly string[];
  /** Asks the endpoint for its models; null when no model is connected to ask through. */
  listModels(): Promise<string[] | null>;
  /** Connects to `name` at the configured endpoint; throws with how to fix it. */
  setModel(name: string): Promise<void>;
  /** `replio config get|set|unset` for the worktree; returns its exit code. */
  runConfig(
    action: string,
    key: string | undefined,
    value: string | undefined,
    global: boolean,
  ): Promise<number>;
  /** Re-reads the configuration files and applies them (display, policy, model). */
  reloadConfig(): Promise<void>;
  /** Starts a fresh session. */
  newSession(): Promise<void>;
  /** Continues session `id`; throws when there is none. */
  loadSession(id: string): Promise<void>;
  /** Re-prints the last exchanges of the session (after loading one). */
  showRecent(): void;
  /** Sends `text` to the model as a message of the person's, in a turn like any other. */
  sendMessage(text: string): Promise<void>;
  /** Summarises older turns; null when there is too little to fold. Throws without a model. */
  compact(signal: AbortSignal): Promise<string | null>;
  /** The terminal for a full-screen pager; null without one (output is printed instead). */
  pagerTerminal(): PagerTerminal | null;
  /** The terminal for a list to pick from (`/model`); null without one. */
  pickerTerminal(): PickerTerminal | null;
  /** Clears the terminal screen (a no-op without a terminal). */
  clearScreen(): void;
  /** Ends the REPL after this command. */
  requestExit(): void;
}
