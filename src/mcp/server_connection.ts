/**
 * One configured MCP server's connection: started through its transport, `initialize`d, its
 * tools listed; calls (plain, or as MCP tasks) with their failures worded for the model; and a
 * restart, with backoff, on the next call after the server exited.
 * @module
 */
import type { ToolArgs, ToolContext } from "../tools/types.ts";
import { type CallToolResult, Client, ErrorCode, McpError, type McpTool } from "./_sdk.ts";
import { ActiveCalls } from "./active_calls.ts";
import { CallDeadline, NO_SDK_TIMEOUT_MS } from "./call_deadline.ts";
import { describeResult, imageRoute } from "./call_result.ts";
import { answerServerRequests, CLIENT_CAPABILITIES } from "./client_capabilities.ts";
import { planTransport } from "./transport.ts";
import { displayUrl } from "./http_transport.ts";
import { loginCommand, McpLoginRequired, ServerStartError } from "./start_error.ts";
import type {
  ConnectOptions,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
  ServerTransport,
} from "./types.ts";

/** Restarts are never further apart than this, unless `mcp_restart_backoff` starts higher. */
const MAX_BACKOFF_MS = 60_000;

/** One server's transport and client, restarted on a call after it exited. */
export class ServerConnection {
  state: McpServerState = "connecting";
  /** How the server runs: the sandbox's label or `none`. */
  isolation = "none";
  tools: McpTool[] = [];
  isRegistered = false;
  registered = 0;
  /** Settles (never rejects) when the first start has succeeded or failed. */
  readonly started: Promise<boolean>;
  #startedResolve!: (ok: boolean) => void;
  #client: Client | null = null;
  #transport: ServerTransport | null = null;
  #detail: string | undefined;
  /** How the server ended, e.g. `exited with code 3`. */
  #exit = "exited";
  #restarting: Promise<void> | null = null;
  #backoffMs = 0;
  #nextRestartAt = 0;
  /** Calls running now: the server's own requests are answered through the latest one. */
  readonly #calls = new ActiveCalls();

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    readonly options: ConnectOptions,
  ) {
    this.started = new Promise((resolve) => this.#startedResolve = resolve);
  }

  /** The current transport, which replio's exit stops; null before the first start. */
  get transport(): ServerTransport | null {
    return this.#transport;
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
      const seconds = this.options.config.get("mcp_connect_timeout");
      const failure = isTimeout(error) ? new Error(`no answer within ${seconds} s`) : error;
      this.#detail = startFailure(this.name, this.config, failure, this.#lastDiagnostic());
      this.options.warn(this.#detail);
      return false;
    } finally {
      this.#startedResolve(this.state === "ready");
    }
  }

  async call(tool: McpTool, args: ToolArgs, ctx: ToolContext): Promise<string> {
    if (this.state === "exited") await this.#restart();
    const timeoutSeconds = ctx.config.get("tool_timeout");
    // replio's own deadline, not the SDK's: it stops while a person answers the server.
    using deadline = new CallDeadline(timeoutSeconds * 1000);
    using scope = this.#calls.begin(ctx, deadline);
    let result: CallToolResult;
    try {
      result = tool.execution?.taskSupport === "required"
        ? await this.#callAsTask(tool.name, args, ctx, deadline.signal)
        : await this.#client!.callTool({ name: tool.name, arguments: args }, undefined, {
          signal: AbortSignal.any([ctx.signal, deadline.signal]),
          timeout: NO_SDK_TIMEOUT_MS,
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
      if (error instanceof McpLoginRequired) {
        throw new Error(
          `MCP server "${this.name}" cannot run "${tool.name}": ${error.reason}: ask the user ` +
            `to run \`${loginCommand(this.name)}\`, and use another tool meanwhile`,
        );
      }
      if (this.state === "exited" || isConnectionClosed(error)) {
        this.state = "exited";
        const again = this.config.url === undefined ? "restarts it" : "connects again";
        throw new Error(
          `MCP server "${this.name}" ${this.#exit} while running "${tool.name}"${this.#stderrNote()}: ` +
            `replio ${again} on the next call: retry once, or use another tool`,
        );
      }
      const detail = error instanceof Error ? error.message : String(error);
      throw new Error(
        `MCP server "${this.name}" failed to run "${tool.name}": ${detail}: check the arguments`,
      );
    }
    // What replio refused the server on the call's behalf comes after what the server said.
    const text = [describeResult(result, imageRoute(ctx)), ...scope.notes].join("\n");
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
    deadline: AbortSignal,
  ): Promise<CallToolResult> {
    const client = this.#client!;
    const signal = AbortSignal.any([ctx.signal, deadline]);
    let taskId: string | undefined;
    try {
      const stream = client.experimental.tasks.callToolStream(
        { name: tool, arguments: args },
        undefined,
        { signal, timeout: NO_SDK_TIMEOUT_MS, task: {} },
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

  /** Starts the server, connects and lists its tools, within `mcp_connect_timeout`. */
  async #open(): Promise<McpTool[]> {
    const { transport, isolation } = await planTransport(this.name, this.config, this.options);
    this.#transport = transport;
    this.isolation = isolation;
    const client = new Client({ name: "replio", version: this.options.version }, {
      capabilities: CLIENT_CAPABILITIES,
    });
    answerServerRequests(client, {
      server: this.name,
      worktree: this.options.worktree,
      headless: this.options.headless,
      calls: this.#calls,
    });
    const deadline = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      timer = setTimeout(() => {
        deadline.abort(new DOMException("no answer in time", "TimeoutError"));
      }, this.options.config.get("mcp_connect_timeout") * 1000);
      // Only mcp_connect_timeout ends the start, not the SDK's own (60 s) request timeout.
      await client.connect(transport, { signal: deadline.signal, timeout: NO_SDK_TIMEOUT_MS });
      client.onclose = () => {
        if (this.#client !== client) return;
        this.#exit = transport.describeExit();
        this.#detail = `${this.#exit}${this.#stderrNote()}`;
        this.state = "exited";
      };
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
          signal: deadline.signal,
          timeout: NO_SDK_TIMEOUT_MS,
        });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      this.#client = client;
      return tools;
    } catch (error) {
      // Stopped with its group before the error is reported: a half-started server must not
      // linger, and its exit code (if it ended by itself) is known by then.
      await transport.close();
      if (isConnectionClosed(error)) {
        throw new Error(`it ${transport.describeExit()} during start-up`, { cause: error });
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
        // The first wait, doubled per failure.
        const firstMs = this.options.config.get("mcp_restart_backoff") * 1000;
        this.#backoffMs = this.#backoffMs === 0
          ? firstMs
          : Math.min(Math.max(MAX_BACKOFF_MS, firstMs), this.#backoffMs * 2);
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

  #lastDiagnostic(): string {
    return this.#transport?.lastDiagnostic() ?? "";
  }

  #stderrNote(): string {
    const lastLine = this.#lastDiagnostic();
    return lastLine ? ` (its stderr: ${lastLine})` : "";
  }
}

/** An MCP progress notification as one line: its message, or how far along it is. */
function reportProgress(progress: (lines: readonly string[]) => void) {
  return (p: { progress: number; total?: number | undefined; message?: string | undefined }) =>
    progress([p.message ?? (p.total ? `${p.progress} of ${p.total}` : `${p.progress}`)]);
}

function startFailure(
  server: string,
  config: McpServerConfig,
  error: unknown,
  lastLine: string,
): string {
  const prefix = `Cannot start MCP server "${server}" (continuing without its tools)`;
  if (error instanceof ServerStartError) return `${prefix}: ${error.message}`;
  const commandLine = [config.command, ...(config.args ?? [])].join(" ");
  if (error instanceof Deno.errors.NotFound) {
    return `${prefix}: command "${config.command}" not found: install it or fix ` +
      `mcp_servers.${server}.command (\`replio config get mcp_servers --show-origin\` shows the file)`;
  }
  if (error instanceof Deno.errors.NotCapable) {
    return `${prefix}: ${error.message.split("\n")[0]}: restart replio with that permission`;
  }
  const detail = error instanceof Error ? error.message : String(error);
  const check = config.url === undefined
    ? `check that "${commandLine}" runs an MCP server on stdio`
    : `check that ${displayUrl(new URL(config.url))} is an MCP server's URL`;
  return `${prefix}: ${detail}${lastLine ? ` (its stderr: ${lastLine})` : ""}: ` +
    `${check}, or remove mcp_servers.${server}`;
}

function isTimeout(error: unknown): boolean {
  return (error instanceof DOMException && error.name === "TimeoutError") ||
    (error instanceof McpError && error.code === ErrorCode.RequestTimeout);
}

function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}
