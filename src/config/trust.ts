/**
 * Folder trust: whether a worktree's own settings may change what replio runs. A cloned
 * repository's `.replio/` is the repository author's, not the user's: its plugins run code,
 * its MCP servers and dev commands start processes, its endpoints receive API keys, and its
 * modes and permissions loosen the policy. Only the user (global config `trusted_folders`, or
 * `--trust`) can let them in. Until then only settings that tighten the policy apply.
 * @module
 */
import { isAbsolute, join } from "../fs/path.ts";
import { isInside } from "../fs/is_inside.ts";
import type { FolderTrust, IgnoredProject, Setting } from "./config.ts";

/** The global key listing trusted folders; a project config never sets it. */
export const TRUSTED_FOLDERS_KEY = "trusted_folders";

/** Actions from strictest to loosest. */
const STRICTNESS = ["deny", "ask", "allow"] as const;

/** The tool_permission keys holding one action (not `bash_allow`). */
const ACTION_KEY = /^tool_permission\.(?!bash_allow$)[a-z_]+$/;

/**
 * The `trusted_folders` entry that covers `worktree` (the folder itself or a parent), or null.
 * Entries are compared by their real path, so a symlinked entry still covers its target;
 * relative entries are skipped: they would mean a different folder wherever replio starts.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(await findTrustingEntry("/", ["/"]), "/");
 * assert.equal(await findTrustingEntry("/nonexistent/a", ["/nonexistent/ab"]), null);
 * ```
 */
export async function findTrustingEntry(
  worktree: string,
  entries: readonly string[],
): Promise<string | null> {
  for (const entry of entries) {
    if (!isAbsolute(entry)) continue;
    for (const folder of new Set([entry, await realPathOrSelf(entry)])) {
      if (isInside(worktree, folder)) return entry;
    }
  }
  return null;
}

async function realPathOrSelf(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return path;
    }
    throw error;
  }
}

/**
 * The values of an untrusted project config that only tighten what `settings` already say,
 * ready to merge: `tools.deny` joined with the current list, and `tool_permission` actions
 * stricter than the current ones (deny < ask < allow).
 *
 * `tool_permission.bash_allow` is never taken from an untrusted project: every entry is a
 * command that then runs without asking, so the list can only loosen. Reading it as a
 * narrowing (an intersection with the user's list) would mean deciding whether `git status`
 * lies inside `git` under whole-word prefix matching, a judgement better left to the user.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const settings = new Map([
 *   ["tools.deny", { value: ["web_fetch"], origin: "default" as const }],
 *   ["tool_permission.bash", { value: "ask", origin: "default" as const }],
 *   ["tool_permission.edit", { value: "allow", origin: "default" as const }],
 * ]);
 * assert.deepEqual(
 *   tighteningValues(settings, {
 *     "tools.deny": ["run_command"],
 *     "tool_permission.bash": "allow",
 *     "tool_permission.edit": "ask",
 *   }),
 *   { "tools.deny": ["web_fetch", "run_command"], "tool_permission.edit": "ask" },
 * );
 * ```
 */
export function tighteningValues(
  settings: ReadonlyMap<string, Setting>,
  values: Record<string, unknown>,
): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === "tools.deny") {
      const current = settings.get(key)?.value as string[] | undefined ?? [];
      const added = (value as string[]).filter((name) => !current.includes(name));
      if (added.length) kept[key] = [...current, ...added];
    } else if (ACTION_KEY.test(key)) {
      const current = settings.get(key)?.value as string;
      if (strictness(value as string) < strictness(current)) kept[key] = value;
    }
  }
  return kept;
}

function strictness(action: string): number {
  return STRICTNESS.indexOf(action as typeof STRICTNESS[number]);
}

/** Agent files and the plugins folder in the worktree's `.replio/`, as found on disk. */
export async function projectFolders(
  worktree: string,
): Promise<Pick<IgnoredProject, "agentFiles" | "pluginsFolder">> {
  const dir = join(worktree, ".replio");
  const agentFiles: string[] = [];
  try {
    for await (const entry of Deno.readDir(join(dir, "agents"))) {
      if (entry.isFile && entry.name.endsWith(".md")) agentFiles.push(entry.name);
    }
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  let pluginsFolder = false;
  try {
    pluginsFolder = (await Deno.stat(join(dir, "plugins"))).isDirectory;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  return { agentFiles: agentFiles.sort(), pluginsFolder };
}

function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable ||
    error instanceof Deno.errors.NotADirectory;
}

/**
 * Entries of a `plugins` list that name a file relative to the worktree: in an untrusted
 * worktree they would import the repository's code, even from the global config. A URL entry
 * pinned by `replio plugin add` (an object) is the user's own choice and loads everywhere.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const pinned = { url: "https://e.com/q.js", integrity: "sha256-x" };
 * assert.deepEqual(
 *   worktreeRelativePlugins(["./.replio/plugins/x.ts", "/opt/p.ts", "https://e.com/p.ts", pinned]),
 *   ["./.replio/plugins/x.ts"],
 * );
 * ```
 */
export function worktreeRelativePlugins(
  entries: readonly (string | { url: string })[],
): string[] {
  return entries.filter((entry): entry is string =>
    typeof entry === "string" && !/^[a-z][a-z0-9+.-]*:/i.test(entry) && !isAbsolute(entry)
  );
}

/**
 * The one line a headless command prints about project settings left out, or null when
 * nothing was; it says what was ignored and how to trust the folder.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   formatTrustNotice({
 *     worktree: "/x",
 *     trusted: false,
 *     by: null,
 *     ignored: {
 *       configFile: "/x/.replio/config.yaml",
 *       values: { plugins: ["p.ts"], base_url: "http://e" },
 *       kept: [],
 *       invalid: null,
 *       agentFiles: ["a.md"],
 *       pluginsFolder: false,
 *       worktreePlugins: [],
 *     },
 *   }),
 *   'replio: untrusted folder /x: ignored .replio/config.yaml (plugins, base_url) and ' +
 *     '.replio/agents/; run "replio trust" to load them',
 * );
 * ```
 */
export function formatTrustNotice(trust: FolderTrust): string | null {
  const ignored = trust.ignored;
  if (!ignored) return null;
  if (trust.trusted) {
    // Only trusted_folders can be left out of a trusted project: trust is the user's to give.
    return `replio: ignored ${TRUSTED_FOLDERS_KEY} in ${ignored.configFile}: it is only read ` +
      `from the global config: run "replio trust PATH" to trust a folder`;
  }
  const parts: string[] = [];
  if (ignored.configFile !== null) {
    const detail = ignored.invalid !== null
      ? `invalid, so its tools.deny and tool_permission could not be applied either: ${ignored.invalid}`
      : [
        Object.keys(ignored.values).join(", "),
        ignored.kept.length ? `kept the stricter ${ignored.kept.join(", ")}` : "",
      ].filter(Boolean).join("; ");
    parts.push(`.replio/config.yaml${detail ? ` (${detail})` : ""}`);
  }
  if (ignored.agentFiles.length) parts.push(".replio/agents/");
  if (ignored.pluginsFolder) parts.push(".replio/plugins/");
  if (ignored.worktreePlugins.length) {
    parts.push(`the worktree plugins ${ignored.worktreePlugins.join(", ")} of the global config`);
  }
  const list = parts.length > 1
    ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`
    : parts[0] ?? "";
  return `replio: untrusted folder ${trust.worktree}: ignored ${list}; ` +
    `run "replio trust" to load them`;
}

/** Endpoint and key settings: a project could send any environment variable to any host. */
const ENDPOINT_KEY = /^(provider|base_url|api_key_env|web\.(.*_url|.*_api_key_env|allow_private))$/;

/**
 * What an untrusted project's settings would do if trusted, one line each, for the REPL's
 * trust question: code it runs, commands it starts, endpoints, loosened permissions, modes.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   describeProjectSettings({
 *     configFile: "/x/.replio/config.yaml",
 *     values: { "dev.test_cmd": "make test", max_rounds: 3 },
 *     kept: [],
 *     invalid: null,
 *     agentFiles: [],
 *     pluginsFolder: false,
 *     worktreePlugins: [],
 *   }),
 *   ["dev commands (run by code_test, code_lint, code_format): test_cmd: make test", "other settings: max_rounds"],
 * );
 * ```
 */
export function describeProjectSettings(ignored: IgnoredProject): string[] {
  const lines: string[] = [];
  if (ignored.invalid !== null) lines.push(`.replio/config.yaml is invalid: ${ignored.invalid}`);
  const rest = new Map(Object.entries(ignored.values));
  const take = (test: (key: string) => boolean) => {
    const taken = [...rest].filter(([key]) => test(key));
    for (const [key] of taken) rest.delete(key);
    return taken;
  };
  const plugins = take((k) => k === "plugins").flatMap(([, v]) =>
    (v as (string | { url: string })[]).map((entry) =>
      typeof entry === "string" ? entry : entry.url
    )
  );
  if (plugins.length) lines.push(`plugins (code run at start-up): ${plugins.join(", ")}`);
  if (ignored.pluginsFolder) lines.push("plugin code in .replio/plugins/");
  for (const [, servers] of take((k) => k === "mcp_servers")) {
    const entries = Object.entries(
      servers as Record<string, { command?: string; args?: string[]; url?: string }>,
    );
    const commands = entries.filter(([, s]) => s.url === undefined);
    const remote = entries.filter(([, s]) => s.url !== undefined);
    if (commands.length) {
      lines.push(
        `MCP servers (commands started): ${
          commands.map(([name, s]) => `${name}: ${[s.command, ...(s.args ?? [])].join(" ")}`)
            .join("; ")
        }`,
      );
    }
    if (remote.length) {
      lines.push(
        `MCP servers (remote, contacted): ${
          remote.map(([name, s]) => `${name}: ${s.url}`).join("; ")
        }`,
      );
    }
  }
  const dev = take((k) => k.startsWith("dev."));
  if (dev.length) {
    lines.push(
      `dev commands (run by code_test, code_lint, code_format): ${
        dev.map(([k, v]) => `${k.slice(4)}: ${v}`).join("; ")
      }`,
    );
  }
  const endpoints = take((k) => ENDPOINT_KEY.test(k));
  if (endpoints.length) {
    lines.push(
      `endpoints and keys: ${endpoints.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")}`,
    );
  }
  const permissions = take((k) => k.startsWith("tool_permission.") || k.startsWith("tools."));
  if (permissions.length) {
    lines.push(
      `permissions: ${permissions.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")}`,
    );
  }
  for (const [key, value] of take((k) => k === "modes" || k === "mode")) {
    lines.push(
      key === "mode"
        ? `start-up mode: ${value}`
        : `modes: ${Object.keys(value as object).join(", ")}`,
    );
  }
  const agents = [
    ...take((k) => k === "agents").flatMap(([, v]) => Object.keys(v as object)),
    ...ignored.agentFiles.map((file) => `.replio/agents/${file}`),
  ];
  if (agents.length) lines.push(`agent types: ${agents.join(", ")}`);
  if (rest.size) lines.push(`other settings: ${[...rest.keys()].join(", ")}`);
  return lines;
}
