/**
 * The tool contract: what a tool declares (spec/tools.md §Registration metadata) and what its
 * handler receives. Types only; plugins see these through `src/plugins/api.ts`.
 * @module
 */
import type { Config } from "../config/config.ts";

/** Drives the default activity glyph and verb. */
export type Category = "search" | "read" | "write" | "exec" | "ask" | "todo" | "delegate" | "mcp";

/** The `tool_permission` key that gates a tool. */
export type PermissionKey = "read" | "list" | "edit" | "bash" | "web" | "mcp" | "ask" | "delegate";

/** A policy action: run, confirm first, or refuse. */
export type Action = "allow" | "ask" | "deny";

/** A plain JSON Schema object, as the model sees it (TypeBox schemas are these too). */
export type JsonSchema = { readonly [key: string]: unknown };

/** Arguments after validation: declared keys only, no nulls. */
export type ToolArgs = Record<string, unknown>;

/** An action with the reason that decided it, e.g. `tool_permission.bash`. */
export interface Resolution {
  action: Action;
  reason: string;
  /**
   * Set when the Deno process lacks a grant the tool needs: the flags that would add it
   * (e.g. `--allow-run=git`). Such a deny is no policy decision, so no policy change helps.
   */
  denoFlags?: string;
  /**
   * The config key whose value decided, when a `permissionFn` read one (run_command's
   * `tool_permission.bash_allow`): `replio policy explain` shows where it is set.
   */
  setting?: string;
}

/**
 * What the Deno process must be granted for a tool to work (DESIGN.md §1), declared beside the
 * tool's other metadata. File access is judged on the worktree; paths elsewhere are checked per
 * call. A tool that declares none is judged by its permission key.
 */
export interface DenoNeeds {
  /** Reads files in the worktree. */
  read?: boolean;
  /** Writes files in the worktree. */
  write?: boolean;
  /** Programs it spawns; each must be granted (`--allow-run=git`). */
  run?: readonly string[];
  /** Reaches arbitrary hosts: only an unrestricted `--allow-net` serves it. */
  net?: boolean;
  /** Talks to the configured model server (delegate's sub-agents). */
  model?: boolean;
  /** Variables it reads when granted; never required (a default is used otherwise). */
  env?: readonly string[];
}

/** What a `permissionFn` may look at besides the arguments. */
export interface PermissionContext {
  config: Config;
  worktree: string;
  /** The action and reason before the function refines it (never `deny`). */
  base: Resolution;
  /** The effective `tool_permission` table, mode applied (e.g. `bash_allow`). */
  toolPermission: Readonly<Record<string, Action | readonly string[]>>;
  /** Services registered by the host (delegate's agent types). */
  services: Readonly<Record<string, unknown>>;
}

/**
 * Whether a tool's calls change nothing (no file written, no command run, nothing done on a
 * server beyond reading), and the evidence, worded to follow "because": read-only modes (`plan`)
 * run only tools for which it holds.
 */
export interface ReadOnlyEvidence {
  isReadOnly: boolean;
  /** e.g. `its MCP server marks it readOnlyHint`, `permission bash runs commands`. */
  reason: string;
}

/** An extra tool name; `args` are preset arguments (`git_status` → `{subcommand: "status"}`). */
export interface ToolAlias {
  name: string;
  args: ToolArgs;
}

/** A question a tool routes to the human or the lead agent (the `ask` tool). */
export interface AskRequest {
  question: string;
  context?: string;
  options?: string[];
  target: "human" | "lead";
}

/** The answer to an {@link AskRequest}; `null` when no one can answer. */
export type AskAnswer = string | null;

/** An image a tool hands the model with its result: base64 data, as MCP and providers carry it. */
export interface ToolImage {
  mimeType: string;
  data: string;
}

/**
 * The model of the agent making a call, for a tool that asks it something on another's behalf
 * (an MCP server's sampling request): one bounded completion, without tools.
 */
export interface CallModel {
  readonly model: string;
  complete(
    messages: { role: "system" | "user" | "assistant"; content: string }[],
    signal: AbortSignal,
  ): Promise<string>;
}

/**
 * What a handler receives besides its arguments. The model never sees it (the seed's `_config`).
 */
export interface ToolContext {
  /** The effective configuration (mode applied). */
  config: Config;
  /** Absolute, symlink-resolved worktree root. */
  worktree: string;
  /** Aborted when the turn is cancelled (Ctrl-C, SIGTERM, timeout). */
  signal: AbortSignal;
  /**
   * Resolves a model-given path against the worktree (`~`, `..` and symlinks resolved) and
   * checks that the Deno process may access it; throws an error naming the missing flag.
   */
  resolvePath(path: string, access?: "read" | "write"): Promise<string>;
  /** Routes a question to the human or the lead; `null` when no one can answer. */
  ask(request: AskRequest): Promise<AskAnswer>;
  /** Services registered by the host (delegate's agent runner); keyed by name. */
  services: Readonly<Record<string, unknown>>;
  /**
   * What a long-running call is doing now, its latest lines (run_command's output, an MCP
   * server's progress message): shown as `tool_progress` events, and forwarded by `replio mcp`
   * as MCP progress. Absent where nobody watches.
   */
  progress?: ((lines: readonly string[]) => void) | undefined;
  /** The model of the agent making the call; absent where none runs (`replio tool`, `replio mcp`). */
  model?: CallModel | undefined;
  /**
   * Hands the model an image with this call's result (sent after the turn's tool results);
   * absent where results reach no model or only as text.
   */
  attachImage?: ((image: ToolImage) => void) | undefined;
  /**
   * Tells the pipeline how the call really ran (`bwrap(…)`, `none`) when it differs from the
   * spec's `isolation`; set by invokeTool, absent elsewhere.
   */
  reportIsolation?: (label: string) => void;
}

/** A tool's implementation: validated arguments in, the result text out. */
export type ToolHandler<A = ToolArgs> = (args: A, ctx: ToolContext) => string | Promise<string>;

/** Everything a tool declares besides its handler (spec/tools.md §Registration metadata). */
export interface ToolSpec<P extends JsonSchema = JsonSchema> {
  name: string;
  description: string;
  parameters: P;
  category: Category;
  permission: PermissionKey;
  /** The Deno grants it needs; see {@link DenoNeeds}. */
  deno?: DenoNeeds;
  /** Refines a non-deny action from the current arguments (e.g. delegate per agent type). */
  permissionFn?: (
    args: ToolArgs,
    ctx: PermissionContext,
  ) => Resolution | Action | Promise<Resolution | Action>;
  /**
   * Why this tool asks even where its permission key allows (`git_commit always confirms`): the
   * policy lowers allow to ask with this reason, in listings and calls alike.
   */
  alwaysAsk?: string;
  /**
   * How "always allow" scopes a rule for this tool (run_command: the exact command or a safe
   * prefix): `propose` gives the rule's pattern (null: offer no rule), `matches` decides whether
   * a later call is covered, `describe` says what a pattern covers after the tool's name
   * (default: `commands starting with "…"`), shown before the person accepts.
   */
  approval?: {
    propose(args: ToolArgs): string | null;
    matches(args: ToolArgs, prefix: string): Promise<boolean>;
    describe?(pattern: string): string;
  };
  /**
   * Set by the loader of tools that come from outside replio (MCP servers, user plugins) from
   * what it can check; bundled tools leave it out and are judged by their permission key.
   */
  readOnly?: ReadOnlyEvidence;
  /** Which parameter is a filesystem path, for worktree scope checks. */
  pathArg?: string;
  /** Which argument appears in activity lines and confirm labels. */
  keyArg?: string;
  glyph?: string;
  verb?: string;
  /** First line: the `[tool: …]` oneliner; further lines: dimmed detail (e.g. a diff). */
  status?: (args: ToolArgs, ctx: ToolContext) => string | Promise<string>;
  /** Print the result dimmed below the activity line (run_command). */
  echo?: boolean;
  /** Short label for /help listings. */
  short?: string;
  /** Extra names resolving to this tool, never advertised. */
  aliases?: readonly (string | ToolAlias)[];
  /** Caller-side parameter synonyms: `{ query: "pattern" }`. */
  paramAliases?: Readonly<Record<string, string>>;
  /** Whether a result is a soft one-line note such as `(empty file)`. */
  note?: (result: string) => boolean;
  /** The argument holding a query that `query_refine` may rewrite. */
  refine?: string;
  /**
   * How a call runs, for the audit and stream-json: `bwrap(net=off, write=worktree)`, `none`,
   * `worker(read=…, net=…)`; absent means `in-process` (replio's own code in its process).
   */
  isolation?: (config: Config, worktree: string) => string;
}

/** A registered tool: its spec and handler. */
export interface Tool extends ToolSpec {
  handler: ToolHandler;
}

/** The function-calling schema sent to a provider. */
export interface ToolSchema {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}
