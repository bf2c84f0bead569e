/**
 * MCP servers as tools: each configured server is spawned over stdio in the background, its
 * tools are listed and registered as `mcp__<server>__<tool>` under the `mcp` permission as soon
 * as it is up, so they pass the same registry and policy as every other tool. A slow server
 * delays nothing; one that fails to start is reported and left out; one that exits later is
 * restarted on its next call, with backoff.
 * @module
 */
import type { ChildProcess } from "node:child_process";
import { resolve } from "../fs/path.ts";
import { stripVTControlCharacters } from "node:util";
import type { Config, ConfigValue } from "../config/mod.ts";
import {
  bwrapArgs,
  childEnv,
  type JsonSchema,
  type SandboxPlan,
  type ToolArgs,
  type ToolContext,
} from "../plugins/api.ts";
import type { ToolRegistry } from "../tools/mod.ts";
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

/** The first wait before restarting a server whose restart failed; doubled per failure. */
const FIRST_BACKOFF_MS = 1_000;

/** Restarts are never further apart than this. */
const MAX_BACKOFF_MS = 60_000;

/** One entry of config `mcp_servers`. */
export type McpServerConfig = ConfigValue<"mcp_servers">[string];

/** Options for {@link McpServers}. */
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
 * The configured servers and their connections. Construction spawns every server at once;
 * {@link attach} registers the tools of each server when it comes up.
 */
export class McpServers {
  readonly #servers: ServerConnection[];
  readonly #taken = new Set<string>();
  readonly #options: ConnectOptions;
  readonly #listeners = new Set<() => void>();
  #registry: ToolRegistry | null = null;

  constructor(servers: Readonly<Record<string, McpServerConfig>>, options: ConnectOptions) {
    this.#options = options;
    this.#servers = Object.entries(servers).map(([name, config]) =>
      new ServerConnection(name, config, options)
    );
    // Deno does not end child processes at exit: without this the servers would outlive replio.
    globalThis.addEventListener("unload", () => this.#servers.forEach((s) => s.kill()));
    for (const server of this.#servers) {
      void server.connect().then((ok) => ok && this.#register(server));
    }
  }

  /** Registers the tools of every server that is up, and of each later one when it comes up. */
  attach(registry: ToolRegistry): void {
    this.#registry = registry;
    for (const server of this.#servers) if (server.state === "ready") this.#register(server);
  }

  /** Calls `listener` whenever tools were added (`replio mcp` sends `tools/list_changed`). */
  onToolsChanged(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** Resolves when every server is up or failed, or after `ms`, whichever comes first. */
  async settle(ms = Infinity): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const all = Promise.all(this.#servers.map((s) => s.started));
    if (ms === Infinity) return void await all;
    try {
      await Promise.race([all, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves once the attached registry knows `name` or every server has started or failed:
   * `replio tool` waits for the server of its tool, not for a hanging other one.
   */
  async untilRegistered(name: string): Promise<void> {
    const known = () => this.#registry?.lookup(name) !== undefined;
    if (known()) return;
    const registered = Promise.withResolvers<void>();
    const listener = () => known() && registered.resolve();
    this.#listeners.add(listener);
    try {
      await Promise.race([registered.promise, this.settle()]);
    } finally {
      this.#listeners.delete(listener);
    }
  }

  /** Every server with its state, as `replio tools` lists it. */
  statuses(): McpServerStatus[] {
    return this.#servers.map((s) => s.status());
  }

  #register(server: ServerConnection): void {
    const registry = this.#registry;
    if (!registry || server.isRegistered) return;
    server.isRegistered = true;
    for (const tool of server.tools) {
      const name = mcpToolName(server.name, tool.name);
      if (this.#taken.has(name) || registry.lookup(name)) {
        this.#options.warn(
          `Cannot register tool "${tool.name}" of MCP server "${server.name}": its name ` +
            `"${name}" is taken by another tool: rename one of the servers in mcp_servers`,
        );
        continue;
      }
      this.#taken.add(name);
      registry.register(
        toolSpec(name, server, tool),
        (args: ToolArgs, ctx: ToolContext) => server.call(tool, args, ctx),
      );
      server.registered++;
    }
    for (const listener of this.#listeners) listener();
  }
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

/** One server's process and client, restarted on a call after it exited. */
class ServerConnection {
  state: McpServerState = "connecting";
  /** How the server runs: the sandbox's label or `none`. */
  isolation = "none";
  tools: McpTool[] = [];
  isRegistered = false;
  registered = 0;
  /** Settles (never rejects) when the first start has succeeded or failed. */
  started: Promise<boolean>;
  #startedResolve!: (ok: boolean) => void;
  #client: Client | null = null;
  #transport: StdioClientTransport | null = null;
  /** The end of the current process's stderr, quoted when it fails. */
  #stderr = "";
  #detail: string | undefined;
  /** How the process ended, e.g. `exited with code 3`. */
  #exit = "exited";
  #restarting: Promise<void> | null = null;
  #backoffMs = 0;
  #nextRestartAt = 0;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    readonly options: ConnectOptions,
  ) {
    this.started = new Promise((resolve) => this.#startedResolve = resolve);
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      state: this.state,
      tools: this.registered,
      ...(this.#detail === undefined ? {} : { detail: this.#detail }),
    };
  }

  /** The first start: reports a failure through `warn`; true when the tools are listed. */
  async connect(): Promise<boolean> {
    try {
      this.tools = await this.#open();
      this.state = "ready";
      return true;
    } catch (error) {
      this.state = "failed";
      this.#detail = startFailure(this.name, this.config, error, this.#stderr);
      this.options.warn(this.#detail);
      return false;
    } finally {
      this.#startedResolve(this.state === "ready");
    }
  }

  kill(): void {
    const pid = this.#transport?.pid;
    if (pid === null || pid === undefined) return;
    try {
      Deno.kill(pid, "SIGTERM");
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }

  async call(tool: McpTool, args: ToolArgs, ctx: ToolContext): Promise<string> {
    if (this.state === "exited") await this.#restart();
    const timeoutSeconds = ctx.config.get("tool_timeout");
    let result: CallToolResult;
    try {
      result = tool.execution?.taskSupport === "required"
        ? await this.#callAsTask(tool.name, args, ctx, timeoutSeconds * 1000)
        : await this.#client!.callTool({ name: tool.name, arguments: args }, undefined, {
          signal: ctx.signal,
          timeout: timeoutSeconds * 1000,
          ...(ctx.progress ? { onprogress: reportProgress(ctx.progress) } : {}),
        }) as CallToolResult;
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      if (isTimeout(error)) {
        throw new Error(
          `MCP server "${this.name}" did not answer "${tool.name}" within ${timeoutSeconds} s: ` +
            `try a smaller request, or raise tool_timeout`,
        );
      }
      if (this.state === "exited" || isConnectionClosed(error)) {
        this.state = "exited";
        throw new Error(
          `MCP server "${this.name}" ${this.#exit} while running "${tool.name}"${this.#stderrNote()}: ` +
            `replio restarts it on the next call: retry once, or use another tool`,
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(
        `MCP server "${this.name}" failed to run "${tool.name}": ${detail}: check the arguments`,
      );
    }
    const text = describeContent(result);
    if (result.isError) throw new Error(text);
    return text;
  }

  /**
   * A call the server runs as an MCP task (`execution.taskSupport: "required"`): created, then
   * polled until it ends; its status messages are the call's progress. Cancelling the call
   * cancels the task on the server too.
   */
  async #callAsTask(
    tool: string,
    args: ToolArgs,
    ctx: ToolContext,
    timeoutMs: number,
  ): Promise<CallToolResult> {
    const client = this.#client!;
    const signal = AbortSignal.any([
      ctx.signal,
      AbortSignal.timeout(timeoutMs),
    ]);
    let taskId: string | undefined;
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: tool, arguments: args },
        undefined,
        { signal, timeout: timeoutMs, task: {} },
      );
      for await (const message of stream) {
        if (message.type === "taskCreated" || message.type === "taskStatus") {
          taskId = message.task.taskId;
          if (message.task.statusMessage) ctx.progress?.([message.task.statusMessage]);
        } else if (message.type === "result") {
          return message.result as CallToolResult;
        } else {
          throw message.error;
        }
      }
      throw new Error(`task of "${tool}" ended without a result`);
    } catch (error) {
      if (signal.aborted && taskId !== undefined) {
        // Best effort: the server may have finished or gone meanwhile.
        await client.experimental.tasks.cancelTask(taskId).catch(() => undefined);
      }
      if (signal.aborted && !ctx.signal.aborted) {
        throw new DOMException("no answer in time", "TimeoutError");
      }
      throw error;
    }
  }

  /** Spawns the server, connects and lists its tools, within {@link CONNECT_TIMEOUT_MS}. */
  async #open(): Promise<McpTool[]> {
    this.#stderr = "";
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cwd = resolve(this.options.worktree, this.config.cwd ?? ".");
    const sandbox = this.options.sandbox;
    if (sandbox?.problem) throw new Error(sandbox.problem);
    const boxed = sandbox?.kind === "bwrap";
    this.isolation = boxed ? sandbox.label : "none";
    const transport = new StdioClientTransport({
      command: boxed ? "bwrap" : this.config.command,
      args: boxed
        ? [...await bwrapArgs(sandbox, cwd), this.config.command, ...this.config.args ?? []]
        : this.config.args ?? [],
      // What commands get (replio's environment less its secrets), so a server that npx or
      // deno fetches sees the proxy and CA settings (HTTPS_PROXY, SSL_CERT_FILE) it needs; the
      // server's own configured env wins.
      env: childEnv(this.options.config, this.config.env ?? {}),
      cwd,
      // Piped, not inherited: a server's logs would land in the REPL or in `replio mcp`'s
      // client; the tail explains a failed start.
      stderr: "pipe",
    });
    this.#transport = transport;
    const decoder = new TextDecoder();
    transport.stderr?.on("data", (chunk: Uint8Array) => {
      this.#stderr = (this.#stderr + decoder.decode(chunk)).slice(-STDERR_TAIL_CHARS);
    });
    const client = new Client({ name: "replio", version: this.options.version });
    const deadline = new AbortController();
    let child: ChildProcess | undefined;
    try {
      timer = setTimeout(() => {
        // Killed before the abort: once the SDK gives up on the request it forgets the pid.
        this.kill();
        deadline.abort(new DOMException("no answer in time", "TimeoutError"));
      }, CONNECT_TIMEOUT_MS);
      const connected = client.connect(transport, { signal: deadline.signal });
      // The SDK keeps the child private and reports only that the connection closed; the exit
      // code is what tells the user (and the model) what happened. It spawns synchronously.
      child = (transport as unknown as { _process?: ChildProcess })._process;
      await connected;
      client.onclose = () => {
        if (this.#client !== client) return;
        this.#exit = describeExit(child);
        this.#detail = `${this.#exit}${this.#stderrNote()}`;
        this.state = "exited";
      };
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          signal: deadline.signal,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      this.#client = client;
      return tools;
    } catch (error) {
      this.kill();
      if (isConnectionClosed(error) && child) {
        throw new Error(`it ${describeExit(child)} during start-up`, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts the server again, unless the last attempt failed too recently (backoff). */
  async #restart(): Promise<void> {
    if (this.#restarting) return await this.#restarting;
    const wait = this.#nextRestartAt - Date.now();
    if (wait > 0) {
      throw new Error(
        `MCP server "${this.name}" ${this.#exit} and its last restart failed: ` +
          `replio tries again in ${Math.ceil(wait / 1000)} s: use another tool meanwhile`,
      );
    }
    this.#restarting = (async () => {
      try {
        await this.#open();
        this.state = "ready";
        this.#detail = undefined;
        this.#backoffMs = 0;
      } catch (error) {
        this.#backoffMs = Math.min(MAX_BACKOFF_MS, (this.#backoffMs || FIRST_BACKOFF_MS / 2) * 2);
        this.#nextRestartAt = Date.now() + this.#backoffMs;
        const detail = error instanceof Error ? error.message : String(error);
        throw new Error(
          `MCP server "${this.name}" ${this.#exit} and could not be restarted: ${detail}` +
            `${this.#stderrNote()}: replio tries again in ${this.#backoffMs / 1000} s; ` +
            `check mcp_servers.${this.name}, or use another tool`,
        );
      } finally {
        this.#restarting = null;
      }
    })();
    await this.#restarting;
  }

  #stderrNote(): string {
    const lastLine = stripVTControlCharacters(this.#stderr).trim().split("\n").at(-1)?.trim();
    return lastLine ? ` (its stderr: ${lastLine})` : "";
  }
}

/** An MCP progress notification as one line: its message, or how far along it is. */
function reportProgress(progress: (lines: readonly string[]) => void) {
  return (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
    progress([p.message ?? (p.total ? `${p.progress} of ${p.total}` : `${p.progress}`)]);
}

function describeExit(child: ChildProcess | undefined): string {
  if (child?.exitCode !== null && child?.exitCode !== undefined) {
    return `exited with code ${child.exitCode}`;
  }
  if (child?.signalCode) return `was killed by ${child.signalCode}`;
  return "exited";
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

function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

function toolSpec(name: string, server: ServerConnection, tool: McpTool) {
  const parameters = tool.inputSchema as JsonSchema;
  const keyArg = firstRequiredString(parameters);
  return {
    name,
    description: tool.description || `Tool "${tool.name}" of MCP server "${server.name}"`,
    parameters,
    category: "mcp" as const,
    permission: "mcp" as const,
    // The server process already runs: its tools need nothing more of this process.
    deno: {},
    isolation: () => server.isolation,
    ...(keyArg === undefined ? {} : { keyArg }),
  };
}

/** The argument shown in activity lines: the first required string parameter. */
function firstRequiredString(schema: JsonSchema): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = (schema.required ?? []) as string[];
  return required.find((name) => properties[name]?.type === "string");
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
