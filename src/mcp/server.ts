/**
 * `replio mcp`: the registry's tools served to an MCP client over stdio. Listing follows the
 * policy (denied tools are hidden) and every call goes through `invokeTool` headless, exactly
 * as `replio tool` runs it. Only protocol messages reach stdout.
 * @module
 */
import process from "node:process";
import type { Config } from "../config/mod.ts";
import { createToolContext, invokeTool, type Policy, type ToolRegistry } from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import type { McpServers } from "./client.ts";
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type McpTool,
  Server,
  StdioServerTransport,
} from "./_sdk.ts";

/** What {@link serveToolsOverStdio} serves. */
export interface McpServeOptions {
  registry: ToolRegistry;
  /** Headless: ask-gated calls are granted only under `--yes`. */
  policy: Policy;
  config: Config;
  worktree: string;
  /** replio's version, sent as the server version. */
  version: string;
  /** Configured MCP servers still starting: their tools are announced with `list_changed`. */
  mcp?: McpServers | null | undefined;
}

/** The parameters of a `tools/call` request, checked by hand for a message a person can read. */
interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
  progressToken: string | number | undefined;
}

/**
 * Answers `tools/list` and `tools/call` on stdin and stdout until the client closes stdin, then
 * waits until every call still running has been cancelled and has ended.
 */
export async function serveToolsOverStdio(options: McpServeOptions): Promise<void> {
  const { registry, policy, config, worktree } = options;
  const server = new Server(
    { name: "replio", version: options.version },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.list().filter((tool) => policy.isVisible(tool)).map((tool): McpTool => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters as McpTool["inputSchema"],
    })),
  }));
  const running = new Set<Promise<unknown>>();
  // tools/call is answered here rather than through setRequestHandler: the SDK would reject
  // malformed params with a dump of its schema errors before replio could say what is wrong.
  server.fallbackRequestHandler = (request, extra) => {
    if (request.method !== "tools/call") {
      throw new ProtocolError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    }
    const params = readCallParams(request.params);
    const found = registry.lookup(params.name);
    if (!found) {
      throw new ProtocolError(
        ErrorCode.InvalidParams,
        `Unknown tool "${params.name}": call tools/list for the tools replio serves`,
      );
    }
    const heartbeat = startHeartbeat({
      token: params.progressToken,
      intervalMs: config.get("mcp_progress_interval") * 1000,
      tool: params.name,
      send: (notification) => extra.sendNotification(notification),
    });
    const call = invokeTool({
      registry,
      policy,
      ctx: createToolContext({
        config,
        worktree,
        signal: extra.signal,
        ...(heartbeat ? { progress: (lines) => heartbeat.report(lines.at(-1) ?? "") } : {}),
      }),
      sink: new CollectingSink(),
    }, {
      id: `mcp_${extra.requestId}`,
      name: params.name,
      arguments: params.arguments,
    }).then((outcome): CallToolResult => ({
      content: [{ type: "text", text: outcome.output }],
      isError: outcome.isError,
    })).finally(() => heartbeat?.stop());
    const settled = call.then(() => {}, () => {});
    running.add(settled);
    void settled.then(() => running.delete(settled));
    return call;
  };
  server.oninitialized = () => {
    options.mcp?.onToolsChanged(() => {
      server.sendToolListChanged().catch((error: unknown) => {
        // The client may be gone already; a lost notification is not worth a crash.
        if (!(error instanceof Error)) throw error;
      });
    });
  };
  const closed = new Promise<void>((resolve) => server.onclose = resolve);
  // The SDK's stdio transport keeps reading after EOF; a client that closes stdin is gone.
  process.stdin.once("end", () => void server.close());
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await closed;
  // Closing aborted every running call's signal; let each end (its processes killed).
  await Promise.all(running);
}

function readCallParams(raw: unknown): CallParams {
  const params = (raw ?? {}) as Record<string, unknown>;
  if (typeof params !== "object" || Array.isArray(params)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: expected an object with "name" and "arguments"`,
    );
  }
  if (typeof params.name !== "string" || params.name === "") {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: "name" must be the name of a tool, got ${
        JSON.stringify(params.name ?? null)
      }: call tools/list for the names`,
    );
  }
  const args = params.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid tools/call params: "arguments" must be a JSON object, got ${
        JSON.stringify(args)
      }: send the tool's arguments as an object`,
    );
  }
  const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
  return {
    name: params.name,
    arguments: args as Record<string, unknown>,
    progressToken: typeof token === "string" || typeof token === "number" ? token : undefined,
  };
}

interface HeartbeatOptions {
  token: string | number | undefined;
  intervalMs: number;
  tool: string;
  send(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/** A running call's progress reporter: {@link startHeartbeat} made it. */
interface Heartbeat {
  /** Sends the tool's own progress message at once (an MCP task's status, a server's report). */
  report(message: string): void;
  stop(): void;
}

/**
 * Sends `notifications/progress` every `intervalMs` while a call runs, and whenever the tool
 * reports progress, when the client gave a progress token (else null): a client that resets its
 * timeout on progress then waits as long as the call takes.
 */
function startHeartbeat(options: HeartbeatOptions): Heartbeat | null {
  const { token } = options;
  if (token === undefined) return null;
  const startedAt = Date.now();
  let beats = 0;
  let latest = "running";
  const send = () => {
    beats++;
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    options.send({
      method: "notifications/progress",
      // No total: the tool's length is unknown, so progress counts reports.
      params: {
        progressToken: token,
        progress: beats,
        message: `${options.tool}: ${latest}, ${seconds} s`,
      },
      // The client is gone: its calls are being cancelled, so stop reporting to it.
    }).catch(() => clearInterval(timer));
  };
  const timer = setInterval(send, options.intervalMs);
  return {
    report(message) {
      latest = message;
      send();
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A JSON-RPC error the SDK sends as `{code, message}`. Not the SDK's McpError, whose message
 * starts with "MCP error -32602:" and would reach clients that prefix it once more.
 */
class ProtocolError extends Error {
  override name = "ProtocolError";
  constructor(readonly code: number, message: string) {
    super(message);
  }
}
