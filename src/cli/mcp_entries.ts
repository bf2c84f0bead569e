/**
 * The `mcp_servers` entries of the global and the project config file as `replio mcp list` and
 * `replio mcp get` show them: where each is written, whether it loads (a project's only in a
 * trusted folder, and it replaces a global entry of the same name), a status that costs no
 * start (is the command on PATH, is the token variable set), and its settings with every
 * secret-looking value redacted. Tokens themselves are never in the config: only the name of
 * the variable holding one.
 * @module
 */
import { join } from "../fs/path.ts";
import {
  configPaths,
  type ConfigValue,
  editDistance,
  loadConfig,
  readConfigFile,
} from "../config/mod.ts";
import { UsageError } from "./errors.ts";

/** One configured server: its entry, the file it is written in, and how it stands. */
export interface McpEntry {
  name: string;
  server: ConfigValue<"mcp_servers">[string];
  file: string;
  scope: "global" | "project";
  /** Why it does not load (an untrusted folder, a project entry of the same name), or null. */
  unloaded: string | null;
}

/** Names whose values are secrets (an Authorization header, an API key variable). */
const SECRET_NAME = /AUTH|COOKIE|KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|SESSION/i;

/** Every entry of both files, the project's first; `trust` is `--trust` for this run. */
export async function readMcpEntries(worktree: string, trust?: boolean): Promise<McpEntry[]> {
  const paths = configPaths(worktree);
  const isTrusted = (await loadConfig({ worktree, trust })).trust.trusted;
  const project = await serversIn(paths.local);
  const global = paths.global === null ? {} : await serversIn(paths.global);
  return [
    ...Object.entries(project).map(([name, server]) => ({
      name,
      server,
      file: paths.local,
      scope: "project" as const,
      unloaded: isTrusted ? null : "this folder is not trusted: run replio trust to load it",
    })),
    ...Object.entries(global).map(([name, server]) => ({
      name,
      server,
      file: paths.global!,
      scope: "global" as const,
      unloaded: isTrusted && name in project
        ? "the project's entry of the same name replaces it"
        : null,
    })),
  ];
}

/** The `mcp_servers` of one file, or none when it has none (or does not exist). */
export async function serversIn(file: string): Promise<ConfigValue<"mcp_servers">> {
  const values = await readConfigFile(file);
  return (values["mcp_servers"] ?? {}) as ConfigValue<"mcp_servers">;
}

/**
 * The error for a name no file configures, with the nearest configured name.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   unknownServer("remove", "fecth", ["fetch", "github"]).message,
 *   'Cannot remove MCP server "fecth": no such server (did you mean "fetch"?): replio mcp list shows them',
 * );
 * ```
 */
export function unknownServer(action: string, name: string, names: string[]): UsageError {
  const near = names
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .filter(({ distance }) => distance <= Math.max(2, name.length / 3))
    .sort((a, b) => a.distance - b.distance)[0];
  return new UsageError(
    `Cannot ${action} MCP server "${name}": no such server` +
      (near ? ` (did you mean "${near.candidate}"?)` : "") +
      `: replio mcp list shows them`,
  );
}

/** `stdio` or `http`. */
export function transportOf(entry: McpEntry): "stdio" | "http" {
  return entry.server.url === undefined ? "stdio" : "http";
}

/** The command line or the URL, as one line. */
export function targetOf(entry: McpEntry): string {
  const { command, args, url } = entry.server;
  return url !== undefined
    ? shownUrl(url)
    : [command ?? "", ...(args ?? [])].map(quoteWord).join(" ");
}

/**
 * What can be known without starting the server: whether it loads, whether its command is on
 * PATH, whether its token variable is set.
 */
export async function statusOf(entry: McpEntry): Promise<string> {
  if (entry.unloaded) return `not loaded: ${entry.unloaded}`;
  const { command, bearer_token_env_var: tokenVar } = entry.server;
  if (command !== undefined) {
    return await isRunnable(command) ? "command found" : `command "${command}" not found`;
  }
  if (tokenVar === undefined) return "remote";
  return readEnv(tokenVar) === undefined
    ? `its token variable ${tokenVar} is not set`
    : `token from ${tokenVar}`;
}

/**
 * A value shown only when its name does not look like a secret's.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(shownValue("Authorization", "Bearer abc"), "[redacted]");
 * assert.equal(shownValue("X-Team", "platform"), "platform");
 * ```
 */
export function shownValue(name: string, value: string): string {
  return SECRET_NAME.test(name) ? "[redacted]" : value;
}

/**
 * A URL with its password and the values of secret-looking query parameters redacted.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   shownUrl("https://mcp.example/mcp?api_key=abc&team=x"),
 *   "https://mcp.example/mcp?api_key=redacted&team=x",
 * );
 * assert.equal(shownUrl("https://mcp.example/mcp"), "https://mcp.example/mcp");
 * ```
 */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  let isRedacted = false;
  if (parsed.password) {
    parsed.password = "redacted";
    isRedacted = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (!looksSecret(name)) continue;
    parsed.searchParams.set(name, "redacted");
    isRedacted = true;
  }
  // Unchanged URLs are shown as written, not as the URL parser normalises them.
  return isRedacted ? parsed.href : url;
}

/** Whether a name looks like it holds a secret. */
export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** One entry in full, as `replio mcp get` prints it: one `key: value` line each. */
export function describeEntry(entry: McpEntry, status: string): string[] {
  const { command, args, env, cwd, url, headers, bearer_token_env_var: tokenVar } = entry.server;
  const pairs = (map: Record<string, string>) =>
    Object.entries(map).map(([k, v]) => `${k}=${shownValue(k, v)}`).join(", ");
  return [
    entry.name,
    `  transport: ${transportOf(entry)}`,
    ...(command === undefined ? [] : [`  command: ${quoteWord(command)}`]),
    ...(args?.length ? [`  args: ${args.map(quoteWord).join(" ")}`] : []),
    ...(env && Object.keys(env).length ? [`  env: ${pairs(env)}`] : []),
    ...(cwd === undefined ? [] : [`  cwd: ${cwd}`]),
    ...(url === undefined ? [] : [`  url: ${shownUrl(url)}`]),
    ...(headers && Object.keys(headers).length ? [`  headers: ${pairs(headers)}`] : []),
    ...(tokenVar === undefined ? [] : [`  bearer_token_env_var: ${tokenVar}`]),
    `  file: ${entry.file} (${entry.scope})`,
    `  status: ${status}`,
    `  remove: replio mcp remove ${quoteWord(entry.name)}${
      entry.scope === "project" ? " --project" : ""
    }`,
  ];
}

/** A word as a shell reads it back: quoted only when it needs it. */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Whether `command` names an executable file, directly or on PATH. */
async function isRunnable(command: string): Promise<boolean> {
  const candidates = command.includes("/")
    ? [command]
    : (readEnv("PATH") ?? "").split(":").filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      const info = await Deno.stat(candidate);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return true;
    } catch (error) {
      // A missing file, a PATH entry that is no folder, or one replio may not read: not here.
      const isAbsent = error instanceof Deno.errors.NotFound ||
        error instanceof Deno.errors.NotADirectory || error instanceof Deno.errors.NotCapable;
      if (!isAbsent) throw error;
    }
  }
  return false;
}

/** A variable's value; unset when replio may not read it. */
function readEnv(name: string): string | undefined {
  return Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
    ? Deno.env.get(name)
    : undefined;
}
