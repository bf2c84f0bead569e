/**
 * MCP servers as tools: each configured server is spawned over stdio, its tools are listed and
 * registered as `mcp__<server>__<tool>` under the `mcp` permission, so they pass the same
 * registry and policy as every other tool. A server that does not start in time is reported
 * and left out; start-up goes on without it.
 * @module
 */
import { resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import type { ConfigValue } from "../config/mod.ts";
import {
  bwrapArgs,
  defineTool,
  type JsonSchema,
  type Plugin,
  type PluginTool,
  type SandboxPlan,
  type ToolArgs,
  type ToolContext,
} from "../plugins/api.ts";
import {
  type CallToolResult,
  Client,
  ErrorCode,
  McpError,
  type McpTool,
  StdioClientTransport,
} from "./_sdk.ts";

/** How long a server may take to start, answer `initialize` and list its tools. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The end of a server's stderr kept to explain why it failed to start. */
const STDERR_TAIL_CHARS = 2_000;

/** Providers accept function names of at most this many characters. */
const MAX_NAME_CHARS = 64;

/** One entry of config `mcp_servers`. */
export type McpServerConfig = ConfigValue<"mcp_servers">[string];

/** Options for {@link connectMcpServers}. */
export interface ConnectOptions {
  /** Relative `cwd` entries resolve against it; servers start there by default. */
  worktree: string;
  /** replio's version, sent as the client version. */
  version: string;
  /** Receives one message per server that failed or tool that was skipped. */
  warn: (message: string) => void;
  /** Set when `sandbox.mcp` is on: servers start inside this OS sandbox (docs/sandbox.md). */
  sandbox?: SandboxPlan | undefined;
}

interface Connection {
  server: string;
  client: Client;
  tools: McpTool[];
  /** How the server runs: the sandbox's label or `none`. */
  isolation: string;
}

/**
 * Starts every server in parallel and returns their tools as one plugin. The servers are
 * killed when the process exits.
 */
export async function connectMcpServers(
  servers: Readonly<Record<string, McpServerConfig>>,
  options: ConnectOptions,
): Promise<Plugin> {
  const connections = await Promise.all(
    Object.entries(servers).map(([server, config]) => connectServer(server, config, options)),
  );
  const tools: PluginTool[] = [];
  const taken = new Set<string>();
  for (const connection of connections) {
    for (const tool of connection?.tools ?? []) {
      const name = mcpToolName(connection!.server, tool.name);
      if (taken.has(name)) {
        options.warn(
          `Cannot register tool "${tool.name}" of MCP server "${
            connection!.server
          }": its name "${name}" is taken by another MCP tool: rename one of the servers in mcp_servers`,
        );
        continue;
      }
      taken.add(name);
      tools.push(toPluginTool(name, connection!, tool));
    }
  }
  return { name: "mcp", tools };
}

/**
 * The registry name of a server's tool: `mcp__<server>__<tool>`, other characters replaced by
 * `_`, cut to the 64 characters providers accept.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(mcpToolName("my.server", "read file"), "mcp__my_server__read_file");
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_NAME_CHARS);
}

async function connectServer(
  server: string,
  config: McpServerConfig,
  options: ConnectOptions,
): Promise<Connection | null> {
  let stderr = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const cwd = resolve(options.worktree, config.cwd ?? ".");
    const sandbox = options.sandbox;
    if (sandbox?.problem) throw new Error(sandbox.problem);
    const boxed = sandbox?.kind === "bwrap";
    const transport = new StdioClientTransport({
      command: boxed ? "bwrap" : config.command,
      args: boxed
        ? [...await bwrapArgs(sandbox, cwd), config.command, ...config.args ?? []]
        : config.args ?? [],
      env: config.env ?? {},
      cwd,
      // Piped, not inherited: a server's logs would land in the REPL or in `replio mcp`'s
      // client; the tail explains a failed start.
      stderr: "pipe",
    });
    const decoder = new TextDecoder();
    transport.stderr?.on("data", (chunk: Uint8Array) => {
      stderr = (stderr + decoder.decode(chunk)).slice(-STDERR_TAIL_CHARS);
    });
    killAtExit(transport);
    const client = new Client({ name: "replio", version: options.version });
    const deadline = new AbortController();
    timer = setTimeout(() => {
      // Killed before the abort: once the SDK gives up on the request it forgets the pid.
      killServer(transport);
      deadline.abort(new DOMException("no answer in time", "TimeoutError"));
    }, CONNECT_TIMEOUT_MS);
    await client.connect(transport, { signal: deadline.signal });
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        signal: deadline.signal,
      });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return { server, client, tools, isolation: boxed ? sandbox.label : "none" };
  } catch (error) {
    options.warn(startFailure(server, config, error, stderr));
    return null;
  } finally {
    clearTimeout(timer);
  }
}

function startFailure(
  server: string,
  config: McpServerConfig,
  error: unknown,
  stderr: string,
): string {
  const prefix = `Cannot start MCP server "${server}" (continuing without its tools)`;
  const commandLine = [config.command, ...(config.args ?? [])].join(" ");
  if ((error as { code?: unknown }).code === "ENOENT") {
    return `${prefix}: command "${config.command}" not found: install it or fix ` +
      `mcp_servers.${server}.command (\`replio config get mcp_servers --show-origin\` shows the file)`;
  }
  if (error instanceof Deno.errors.NotCapable) {
    return `${prefix}: ${error.message.split("\n")[0]}: restart replio with that permission`;
  }
  const lastLine = stripVTControlCharacters(stderr).trim().split("\n").at(-1)?.trim() ?? "";
  const detail = isTimeout(error)
    ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`
    : error instanceof Error
    ? error.message
    : String(error);
  return `${prefix}: ${detail}${lastLine ? ` (its stderr: ${lastLine})` : ""}: ` +
    `check that "${commandLine}" runs an MCP server on stdio, or remove mcp_servers.${server}`;
}

function isTimeout(error: unknown): boolean {
  return (error instanceof DOMException && error.name === "TimeoutError") ||
    (error instanceof McpError && error.code === ErrorCode.RequestTimeout);
}

/** Servers would outlive replio otherwise: Deno does not end child processes at exit. */
function killAtExit(transport: StdioClientTransport): void {
  globalThis.addEventListener("unload", () => killServer(transport));
}

function killServer(transport: StdioClientTransport): void {
  const pid = transport.pid;
  if (pid === null) return;
  try {
    Deno.kill(pid, "SIGTERM");
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function toPluginTool(name: string, connection: Connection, tool: McpTool): PluginTool {
  const parameters = tool.inputSchema as JsonSchema;
  const keyArg = firstRequiredString(parameters);
  return defineTool<JsonSchema, ToolArgs>(
    {
      name,
      description: tool.description || `Tool "${tool.name}" of MCP server "${connection.server}"`,
      parameters,
      category: "mcp",
      permission: "mcp",
      isolation: () => connection.isolation,
      ...(keyArg === undefined ? {} : { keyArg }),
    },
    (args, ctx) => callMcpTool(connection, tool.name, args, ctx),
  );
}

/** The argument shown in activity lines: the first required string parameter. */
function firstRequiredString(schema: JsonSchema): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (schema.required ?? []) as string[];
  return required.find((name) => properties[name]?.type === "string");
}

async function callMcpTool(
  { server, client }: Connection,
  tool: string,
  args: ToolArgs,
  ctx: ToolContext,
): Promise<string> {
  const timeoutSeconds = ctx.config.get("tool_timeout");
  let result: CallToolResult;
  try {
    result = await client.callTool({ name: tool, arguments: args }, undefined, {
      signal: ctx.signal,
      timeout: timeoutSeconds * 1000,
    }) as CallToolResult;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (isTimeout(error)) {
      throw new Error(
        `MCP server "${server}" did not answer "${tool}" within ${timeoutSeconds} s: ` +
          `try a smaller request, or raise tool_timeout`,
      );
    }
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `MCP server "${server}" failed to run "${tool}": ${detail}: ` +
        `check the arguments; if the server stopped, restart replio`,
    );
  }
  const text = describeContent(result);
  if (result.isError) throw new Error(text);
  return text;
}

/** Text blocks joined; other blocks described in one line each, as the model cannot see them. */
function describeContent(result: CallToolResult): string {
  const parts = (result.content ?? []).map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
      case "audio":
        return `[${block.type}: ${block.mimeType}, ${
          Math.floor(block.data.length * 3 / 4)
        } bytes, not shown]`;
      case "resource_link":
        return `[resource link: ${block.uri}]`;
      case "resource":
        return "text" in block.resource
          ? block.resource.text
          : `[resource: ${block.resource.uri}, ${block.resource.mimeType ?? "binary"}, not shown]`;
      default:
        return `[${(block as { type: string }).type} content, not shown]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return parts.length ? parts.join("\n") : "(no output)";
}
