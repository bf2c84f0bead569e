/**
 * The single table of configuration keys: each key's schema, default and one-line doc.
 * Validation, `replio config` and `docs/config.md` all come from here.
 * @module
 */
import { type Static, Type } from "../schema/type.ts";
import { AGENT_SCHEMA, MODE_SCHEMA, PLUGIN_ENTRY_SCHEMA } from "./entry_schemas.ts";
import { ACTION, key, STRINGS } from "./key_spec.ts";
import { MCP_KEYS } from "./mcp_keys.ts";
import { MCP_SERVER_SCHEMA, mcpServerProblem } from "./mcp_server_entry.ts";

export { AGENT_SCHEMA, MODE_SCHEMA, PLUGIN_ENTRY_SCHEMA } from "./entry_schemas.ts";
export type { KeySpec } from "./key_spec.ts";

/** Every configuration key, dotted, in the order docs/config.md lists them. */
export const CONFIG_KEYS = {
  // Model and provider
  provider: key(
    Type.Union([Type.Literal("openai"), Type.Literal("ollama")]),
    "openai",
    "Provider kind; `openai` covers every OpenAI-compatible endpoint",
  ),
  model: key(Type.String(), "", "Model name; empty picks the server's first listed model"),
  base_url: key(
    Type.String(),
    "",
    "Endpoint URL; empty uses OPENAI_BASE_URL, else a local Ollama on 127.0.0.1:11434",
  ),
  api_key_env: key(
    Type.String(),
    "OPENAI_API_KEY",
    "Name of the environment variable holding the API key (the key itself is never stored)",
  ),
  temperature: key(
    Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()]),
    null,
    "Sampling temperature; null leaves the server default",
  ),
  max_tokens: key(
    Type.Integer({ minimum: 0 }),
    0,
    "Cap on tokens per model reply; 0 leaves the server default",
  ),
  reasoning: key(
    Type.Union([
      Type.Literal(""),
      Type.Literal("low"),
      Type.Literal("medium"),
      Type.Literal("high"),
    ]),
    "",
    "Reasoning effort sent to models that support it; empty sends none",
  ),
  stream_idle_timeout: key(
    Type.Number({ exclusiveMinimum: 0 }),
    120,
    "Seconds a model stream may stay silent before the turn fails",
  ),
  max_retries: key(
    Type.Integer({ minimum: 0, maximum: 10 }),
    3,
    "Retries of a request that got 429, 5xx or a dropped connection",
  ),
  context_window: key(
    Type.Integer({ minimum: 1024 }),
    128000,
    "The model's context size in tokens, for automatic compaction",
  ),
  compact_threshold: key(
    Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
    0.8,
    "Compact the history when the prompt passes this share of context_window",
  ),
  max_rounds: key(
    Type.Integer({ minimum: 1 }),
    50,
    "Model rounds per turn before it ends with status max_rounds",
  ),
  system_prompt: key(Type.String(), "", "Extra text appended to the built-in system prompt"),
  project_instructions: key(
    Type.String(),
    "AGENTS.md",
    "Worktree instructions file for the system prompt (not followed out of it); empty disables",
  ),
  project_instructions_max_chars: key(
    Type.Integer({ minimum: 0 }),
    20000,
    "Cap on the project instructions loaded into the prompt (0 = unlimited)",
  ),

  // Tools and policy
  tool_calling: key(Type.Boolean(), true, "Enable OpenAI-compatible function calling"),
  "tools.allow": key(
    STRINGS,
    [],
    "Name-level allowlist (names or aliases); when non-empty only these tools are callable",
  ),
  "tools.deny": key(
    STRINGS,
    [],
    "Name-level deny list, names or aliases (takes precedence over tools.allow)",
  ),
  "tool_permission.read": key(ACTION, "allow", "Action for tools that read files"),
  "tool_permission.list": key(ACTION, "allow", "Action for tools that list directories"),
  "tool_permission.edit": key(ACTION, "allow", "Action for tools that write files or commit"),
  "tool_permission.bash": key(ACTION, "ask", "Action for tools that run commands"),
  "tool_permission.web": key(ACTION, "allow", "Action for tools that reach the web"),
  "tool_permission.mcp": key(ACTION, "ask", "Action for tools served by MCP servers"),
  "tool_permission.mcp_sampling": key(
    ACTION,
    "ask",
    "Action when an MCP server asks replio's model for a completion (sampling) during a call",
  ),
  "tool_permission.ask": key(ACTION, "allow", "Action for the ask tool"),
  "tool_permission.delegate": key(
    ACTION,
    "allow",
    "Action for delegate; configured agent types default to ask, unknown types are denied",
  ),
  "tool_permission.bash_allow": key(
    STRINGS,
    [],
    "When non-empty, the only commands run_command may run (without asking); others are denied",
  ),
  max_delegate_depth: key(
    Type.Integer({ minimum: 0, maximum: 8 }),
    2,
    "How deep sub-agents may delegate further",
  ),
  tool_max_result_chars: key(
    Type.Integer({ minimum: 0 }),
    100000,
    "Cap every tool result at N chars at a line boundary (0 = unlimited)",
  ),
  list_dir_max_entries: key(
    Type.Integer({ minimum: 0 }),
    200,
    "Cap the number of entries list_dir returns (0 = unlimited)",
  ),
  tool_timeout: key(
    Type.Integer({ minimum: 1 }),
    120,
    "Default seconds a run_command, dev or user plugin tool call may run before it is stopped",
  ),
  plugin_abort_grace: key(
    Type.Number({ minimum: 0 }),
    1,
    "Seconds a cancelled user plugin call may take to clean up after its signal aborts, before its Worker is stopped",
  ),
  tool_idle_timeout: key(
    Type.Integer({ minimum: 0 }),
    0,
    "Seconds without output after which run_command stops a command, returning what it printed (0 = never)",
  ),
  "shell_env.keep": key(
    STRINGS,
    [],
    "Variables commands and MCP servers get although their names look secret",
  ),
  "sandbox.mode": key(
    Type.Union([Type.Literal("auto"), Type.Literal("bwrap"), Type.Literal("off")]),
    "auto",
    "OS sandbox for run_command and code_* (docs/sandbox.md): auto uses bubblewrap where it runs",
  ),
  "sandbox.network": key(Type.Boolean(), false, "Let sandboxed commands reach the network"),
  "sandbox.mcp": key(Type.Boolean(), false, "Run MCP stdio servers inside the sandbox too"),
  tool_analysis: key(
    Type.Boolean(),
    false,
    "Model-generated one-line analysis of each tool result (session log only)",
  ),
  query_refine: key(Type.Boolean(), false, "Auto-refine short query args via a model call"),
  query_refine_min_words: key(
    Type.Integer({ minimum: 0 }),
    3,
    "Queries of at most this many words are refined",
  ),
  query_refine_context: key(
    Type.Integer({ minimum: 0 }),
    4,
    "Recent messages given to the refinement call",
  ),
  "search.time_budget": key(
    Type.Number({ exclusiveMinimum: 0 }),
    20,
    "Seconds grep and glob search before returning what they found, with a note of what was not searched",
  ),
  "search.max_results": key(
    Type.Integer({ minimum: 0 }),
    20000,
    "Matching lines (grep) or files (glob) after which the search stops and returns them with a note (0 = unlimited)",
  ),
  "tool_output.max_mb": key(
    Type.Number({ minimum: 0 }),
    256,
    "Disk budget per session (MB) for full outputs kept for tool_output when a result is cut; the oldest go first (0 = keep none)",
  ),
  search_results: key(
    Type.Integer({ minimum: 1, maximum: 50 }),
    5,
    "Number of results web_search returns",
  ),
  "web.search_backend": key(
    Type.Union([
      Type.Literal("duckduckgo"),
      Type.Literal("searxng"),
      Type.Literal("brave"),
      Type.Literal("tavily"),
    ]),
    "duckduckgo",
    "web_search backend",
  ),
  "web.search_backends": key(
    Type.Array(Type.Union([
      Type.Literal("duckduckgo"),
      Type.Literal("searxng"),
      Type.Literal("brave"),
      Type.Literal("tavily"),
    ])),
    [],
    "Backends web_search asks together, results merged; one that fails or does not answer in time is named (empty: web.search_backend alone)",
  ),
  "web.search_timeout": key(
    Type.Number({ exclusiveMinimum: 0 }),
    15,
    "Seconds web_search waits for its backends; the results of those that answered are returned",
  ),
  "web.searxng_url": key(Type.String(), "", "SearXNG instance URL (searxng backend)"),
  "web.brave_api_key_env": key(
    Type.String(),
    "BRAVE_API_KEY",
    "Environment variable holding the Brave Search API key",
  ),
  "web.tavily_api_key_env": key(
    Type.String(),
    "TAVILY_API_KEY",
    "Environment variable holding the Tavily API key",
  ),
  "web.duckduckgo_url": key(
    Type.String(),
    "https://html.duckduckgo.com/html/",
    "DuckDuckGo HTML endpoint (duckduckgo backend)",
  ),
  "web.brave_url": key(
    Type.String(),
    "https://api.search.brave.com/res/v1/web/search",
    "Brave Search API endpoint (brave backend)",
  ),
  "web.tavily_url": key(
    Type.String(),
    "https://api.tavily.com/search",
    "Tavily search API endpoint (tavily backend)",
  ),
  "web.allow_private": key(
    Type.Boolean(),
    false,
    "Let web tools reach loopback, private, link-local and metadata addresses",
  ),
  "web.fetch_timeout": key(
    Type.Number({ exclusiveMinimum: 0 }),
    30,
    "Seconds web_fetch waits for a page",
  ),
  "web.fetch_max_bytes": key(
    Type.Integer({ minimum: 1024 }),
    5_000_000,
    "Largest download web_fetch accepts",
  ),
  "web.fetch_window_chars": key(
    Type.Integer({ minimum: 1000 }),
    20000,
    "Characters of a page web_fetch returns per window",
  ),
  "web.max_redirects": key(
    Type.Integer({ minimum: 0, maximum: 20 }),
    5,
    "Redirects web_fetch follows",
  ),
  "dev.test_cmd": key(Type.String(), "", "Command code_test runs; empty detects the project's"),
  "dev.lint_cmd": key(Type.String(), "", "Command code_lint runs; empty detects the project's"),
  "dev.format_cmd": key(
    Type.String(),
    "",
    "Command code_format runs; empty detects the project's",
  ),
  "git.run_hooks": key(
    Type.Boolean(),
    false,
    "Let git_commit run the repository's hooks (pre-commit, commit-msg, …)",
  ),

  // Sessions
  session_tool_max_chars: key(
    Type.Integer({ minimum: 0 }),
    0,
    "Cap persisted tool-result content in session files (0 = unlimited)",
  ),
  noise_tools: key(
    STRINGS,
    ["web_fetch", "open", "fetch_page"],
    "Tool results replaced by a marker in persisted sessions",
  ),

  // Display
  tool_status_visible: key(Type.Boolean(), true, "Show dimmed tool status in the REPL"),
  glyph_lines: key(
    Type.Boolean(),
    true,
    "Typed activity lines for mapped categories, else the [tool: arg] oneliner",
  ),
  glyph_params: key(
    Type.Boolean(),
    true,
    "Append the other arguments to activity lines (confirm prompts always show them)",
  ),
  show_errors: key(Type.Boolean(), true, "Echo the first line of a failed tool's error"),
  show_notes: key(Type.Boolean(), true, "Show soft tool notes such as (empty file)"),
  show_thinking: key(
    Type.Boolean(),
    false,
    "Show reasoning text dimmed instead of a spinner summary",
  ),
  history_size: key(
    Type.Integer({ minimum: 0 }),
    1000,
    "Lines of REPL input history kept per worktree",
  ),

  // Extension
  mode: key(
    Type.String(),
    "default",
    "Mode applied at start-up (`default`, `plan`, `sandboxed` or a mode below)",
  ),
  modes: key(
    Type.Record(Type.String(), MODE_SCHEMA),
    {},
    "Named modes layered over the base policy; `plan`, `sandboxed` and `accept-edits` are built in",
    { mergesPerEntry: true },
  ),
  agents: key(
    Type.Record(Type.String(), AGENT_SCHEMA),
    {},
    "Agent types for delegate, besides .replio/agents/*.md",
    { mergesPerEntry: true },
  ),
  plugins: key(
    Type.Array(PLUGIN_ENTRY_SCHEMA),
    [],
    "User plugins, each in its own Worker: paths, or URL entries pinned by `replio plugin add`",
  ),
  mcp_servers: key(
    Type.Record(Type.String(), MCP_SERVER_SCHEMA),
    {},
    "MCP servers: started over stdio (`command`) or remote (`url`); their tools become `mcp__<server>__<tool>` (docs/mcp.md)",
    { mergesPerEntry: true, check: mcpServerProblem },
  ),

  // Trust
  trusted_folders: key(
    STRINGS,
    [],
    "Absolute folders (and everything beneath) whose .replio/ settings load; global config only, set with `replio trust`",
  ),
  // MCP servers: start-up, restarts, progress, images (mcp_keys.ts)
  ...MCP_KEYS,
} as const;

/** A dotted configuration key. */
export type ConfigKey = keyof typeof CONFIG_KEYS;

/** The value type of a key. */
export type ConfigValue<K extends ConfigKey> = Static<(typeof CONFIG_KEYS)[K]["schema"]>;

/** Where a value came from, lowest precedence first. */
export type Origin = "default" | "global" | "local" | "flag";
