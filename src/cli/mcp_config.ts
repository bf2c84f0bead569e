/**
 * `replio mcp add|list|get|remove`: the `mcp_servers` of the global config (or, with
 * `--project`, of the worktree's `.replio/config.yaml`), managed as Claude Code and Codex users
 * know it. Writes go through `replio config set`'s path, so comments and other keys survive and
 * nothing invalid is written (docs/mcp.md, "Managing servers").
 * @module
 */
import {
  configPaths,
  type ConfigValue,
  loadConfig,
  setConfigValue,
  unsetConfigValue,
} from "../config/mod.ts";
import { EXIT, UsageError } from "./errors.ts";
import {
  describeEntry,
  looksSecret,
  type McpEntry,
  readMcpEntries,
  serversIn,
  shownUrl,
  statusOf,
  targetOf,
  transportOf,
  unknownServer,
} from "./mcp_entries.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** Options of `replio mcp add`. */
export interface McpAddOptions {
  url?: string;
  /** `K=V` (or `K: V`), repeatable. */
  header?: string[];
  bearerTokenEnvVar?: string;
  /** `K=V`, repeatable. */
  env?: string[];
  project?: boolean;
  force?: boolean;
  path?: string;
}

/** Options of `replio mcp list` and `replio mcp get`. */
export interface McpShowOptions {
  json?: boolean;
  path?: string;
  trust?: boolean;
}

/** Options of `replio mcp remove`. */
export interface McpRemoveOptions {
  project?: boolean;
  path?: string;
}

/** A server name that is one config key segment and one tool name prefix as it is. */
const NAME = /^[A-Za-z0-9_-]+$/;

/** Adds a server (`-- CMD ARGS…` or `--url URL`); exit 0, or 2 for a bad or existing entry. */
export async function runMcpAdd(
  name: string,
  command: string[],
  options: McpAddOptions,
): Promise<number> {
  if (!NAME.test(name)) {
    throw new UsageError(
      `Cannot add MCP server "${name}": a name is letters, digits, _ and - only: choose another`,
    );
  }
  const server = entryFrom(name, command, options);
  const worktree = await resolveWorktree(options.path);
  const file = targetFile(worktree, options.project ?? false, "add");
  const existing = await serversIn(file);
  if (name in existing && !options.force) {
    throw new UsageError(
      `Cannot add MCP server "${name}": already exists in ${file}: use replio mcp remove ` +
        `${name} first, or add --force to replace it`,
    );
  }
  await setConfigValue(file, `mcp_servers.${name}`, server);
  const kind = server.url === undefined ? "stdio" : "http";
  await writeOut(
    `${name in existing ? "Replaced" : "Added"} MCP server "${name}" (${kind}) in ${file}: ` +
      `replio tools lists its tools\n`,
  );
  for (const header of Object.keys(server.headers ?? {}).filter(looksSecret)) {
    await writeErr(
      `replio: the header ${header} holds a secret and is written in ${file} in plain text: ` +
        `keep it out of shared files, or pass a token with --bearer-token-env-var VAR\n`,
    );
  }
  if (options.project) await warnIfUntrusted(worktree, file);
  return EXIT.ok;
}

/** Lists every configured server; exit 0 (an empty list says how to add one). */
export async function runMcpList(options: McpShowOptions): Promise<number> {
  const entries = await readMcpEntries(await resolveWorktree(options.path), options.trust);
  const rows = await Promise.all(entries.map(async (entry) => ({
    name: entry.name,
    transport: transportOf(entry),
    target: targetOf(entry),
    file: `${entry.file} (${entry.scope})`,
    status: await statusOf(entry),
  })));
  if (options.json) {
    await writeOut(JSON.stringify(rows, null, 2) + "\n");
    return EXIT.ok;
  }
  if (rows.length === 0) {
    await writeErr(
      "replio: no MCP servers are configured: add one with replio mcp add NAME -- COMMAND ARGS, " +
        "or replio mcp add NAME --url URL\n",
    );
    return EXIT.ok;
  }
  const header = {
    name: "NAME",
    transport: "TRANSPORT",
    target: "COMMAND OR URL",
    file: "FILE",
    status: "STATUS",
  };
  await writeOut(table([header, ...rows]));
  return EXIT.ok;
}

/** Shows one server in full, secrets redacted; exit 2 for an unknown name. */
export async function runMcpGet(name: string, options: McpShowOptions): Promise<number> {
  const entries = await readMcpEntries(await resolveWorktree(options.path), options.trust);
  const found = entries.filter((e) => e.name === name);
  if (found.length === 0) throw unknownServer("show", name, entries.map((e) => e.name));
  if (options.json) {
    const shown = await Promise.all(
      found.map(async (entry) => jsonOf(entry, await statusOf(entry))),
    );
    await writeOut(JSON.stringify(shown.length === 1 ? shown[0] : shown, null, 2) + "\n");
    return EXIT.ok;
  }
  const blocks = await Promise.all(
    found.map(async (entry) => describeEntry(entry, await statusOf(entry)).join("\n") + "\n"),
  );
  await writeOut(blocks.join("\n"));
  return EXIT.ok;
}

/** Removes a server from the global file (or the project's); exit 2 when that file lacks it. */
export async function runMcpRemove(name: string, options: McpRemoveOptions): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const file = targetFile(worktree, options.project ?? false, "remove");
  const entry = (await serversIn(file))[name];
  if (entry === undefined) {
    const entries = await readMcpEntries(worktree, true);
    const elsewhere = entries.find((e) => e.name === name);
    if (elsewhere) {
      throw new UsageError(
        `Cannot remove MCP server "${name}": it is in ${elsewhere.file}, not ${file}: ` +
          (elsewhere.scope === "project" ? "add --project" : "leave out --project"),
      );
    }
    throw unknownServer("remove", name, entries.map((e) => e.name));
  }
  await unsetConfigValue(file, `mcp_servers.${name}`);
  await writeOut(`Removed MCP server "${name}" from ${file}\n`);
  if (entry.url !== undefined) {
    await writeErr(
      `replio: a stored login of "${name}" stays until replio mcp logout ${name} forgets it\n`,
    );
  }
  return EXIT.ok;
}

/** The entry the flags describe: exactly one of a command and `--url`, each with its own flags. */
function entryFrom(
  name: string,
  command: string[],
  options: McpAddOptions,
): ConfigValue<"mcp_servers">[string] {
  const fail = (problem: string) =>
    new UsageError(`Cannot add MCP server "${name}": ${problem}: see replio mcp add --help`);
  if (options.url !== undefined && command.length > 0) {
    throw fail("give either --url URL or -- COMMAND ARGS, not both");
  }
  if (options.url === undefined) {
    if (command.length === 0) throw fail("give the command after --, or --url URL");
    if (options.header?.length || options.bearerTokenEnvVar !== undefined) {
      throw fail("--header and --bearer-token-env-var are for a server with --url");
    }
    const [program, ...args] = command as [string, ...string[]];
    const env = pairs(options.env ?? [], "--env", /=/, fail);
    return {
      command: program,
      ...(args.length ? { args } : {}),
      ...(Object.keys(env).length ? { env } : {}),
    };
  }
  if (options.env?.length) throw fail("--env is for a server started with a command");
  if (!/^https?:\/\//.test(options.url) || !URL.canParse(options.url)) {
    throw fail(`--url must be an http:// or https:// URL, got "${options.url}"`);
  }
  if (
    options.bearerTokenEnvVar !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(
      options.bearerTokenEnvVar,
    )
  ) {
    throw fail(
      `--bearer-token-env-var takes the name of a variable, got "${options.bearerTokenEnvVar}"`,
    );
  }
  const headers = pairs(options.header ?? [], "--header", /=|:/, fail);
  return {
    url: options.url,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(options.bearerTokenEnvVar === undefined
      ? {}
      : { bearer_token_env_var: options.bearerTokenEnvVar }),
  };
}

/** `K=V` words as a mapping; `separator` is the first `=` (or `:` for headers). */
function pairs(
  words: string[],
  flag: string,
  separator: RegExp,
  fail: (problem: string) => UsageError,
): Record<string, string> {
  const map: Record<string, string> = {};
  for (const word of words) {
    const at = word.search(separator);
    const key = at > 0 ? word.slice(0, at).trim() : "";
    if (!key) throw fail(`${flag} takes KEY=VALUE, got "${word}"`);
    map[key] = word.slice(at + 1).trim();
  }
  return map;
}

/** The file a command writes: the global config, or the project's with `--project`. */
function targetFile(worktree: string, project: boolean, action: string): string {
  const paths = configPaths(worktree);
  if (project) return paths.local;
  if (paths.global === null) {
    throw new UsageError(
      `Cannot ${action} an MCP server in the global config: neither XDG_CONFIG_HOME nor HOME ` +
        `can be read: run replio with --allow-env, or use --project`,
    );
  }
  return paths.global;
}

/** A project entry written in an untrusted folder does not load: say so, or it looks ignored. */
async function warnIfUntrusted(worktree: string, file: string): Promise<void> {
  if ((await loadConfig({ worktree })).trust.trusted) return;
  await writeErr(
    `replio: wrote ${file}, but this folder is not trusted, so its servers do not start: ` +
      `run replio trust to load them\n`,
  );
}

/** An entry for `--json`: its settings with secret-looking values redacted. */
function jsonOf(entry: McpEntry, status: string): Record<string, unknown> {
  const redact = (map: Record<string, string> | undefined) =>
    map &&
    Object.fromEntries(Object.entries(map).map(([k, v]) => [k, looksSecret(k) ? "[redacted]" : v]));
  const { env, headers, url, ...rest } = entry.server;
  return {
    name: entry.name,
    transport: transportOf(entry),
    ...rest,
    ...(url === undefined ? {} : { url: shownUrl(url) }),
    ...(env ? { env: redact(env) } : {}),
    ...(headers ? { headers: redact(headers) } : {}),
    file: entry.file,
    scope: entry.scope,
    status,
  };
}

/** Rows as columns two spaces apart, the last column unpadded. */
function table(rows: Record<string, string>[]): string {
  const keys = Object.keys(rows[0]!);
  const widths = keys.map((k) => Math.max(...rows.map((row) => row[k]!.length)));
  return rows.map((row) =>
    keys.map((k, i) => i === keys.length - 1 ? row[k] : row[k]!.padEnd(widths[i]!)).join("  ")
  ).join("\n") + "\n";
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
