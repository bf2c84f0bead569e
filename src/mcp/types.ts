/**
 * The shapes the MCP client's modules share: a configured server, the options servers start
 * with, a server's state as `replio tools` shows it, and what a connection needs of a transport.
 * Types only.
 * @module
 */
import type { Config, ConfigValue } from "../config/mod.ts";
import type { SandboxPlan } from "../plugins/api.ts";
import type { HeadlessAnswer } from "../tools/mod.ts";
import type { Transport } from "./_sdk.ts";

/** One entry of config `mcp_servers`. */
export type McpServerConfig = ConfigValue<"mcp_servers">[string];

/** Options for `McpServers`. */
export interface ConnectOptions {
  /** Relative `cwd` entries resolve against it; servers start there by default. */
  worktree: string;
  /** replio's version, sent as the client version. */
  version: string;
  /** Receives one message per server that failed or tool that was skipped. */
  warn: (message: string) => void;
  /** Decides which of replio's variables servers inherit (secrets withheld, `shell_env.keep`). */
  config: Config;
  /** Set when `sandbox.mcp` is on: servers start inside this OS sandbox (docs/sandbox.md). */
  sandbox?: SandboxPlan | undefined;
  /**
   * How this command answers ask-gated actions without a person (`--yes`, `--no`, `--park`);
   * undefined in the REPL, where a server's sampling request is put to the person.
   */
  headless?: HeadlessAnswer | undefined;
}

/** Where a server is: `connecting` until it lists its tools, `exited` after it stopped. */
export type McpServerState = "connecting" | "ready" | "failed" | "exited";

/** One server as `replio tools` shows it. */
export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** How many of its tools are registered. */
  tools: number;
  /** Why it failed or exited. */
  detail?: string;
}

/**
 * The SDK's transport plus what replio's messages need of it. Its `close()` ends the server for
 * good (a process with its whole group); its `onclose` fires once the server has gone.
 */
export interface ServerTransport extends Transport {
  /** How the server ended, for messages: `exited with code 3`, `was killed by SIGKILL`. */
  describeExit(): string;
  /** The last line the server reported besides its messages (its stderr); "" when none. */
  lastDiagnostic(): string;
}
