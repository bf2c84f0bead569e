/**
 * `replio mcp`: the registry's tools served to an MCP client over stdio. Listing follows the
 * policy (denied tools are hidden) and every call goes through `invokeTool` headless, exactly
 * as `replio tool` runs it. Only protocol messages reach stdout. {@link createToolServer} is the
 * server without its transport, for another transport to carry (http_server.ts).
 * @module
 */
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
} from "./_sdk.ts";
import { startHeartbeat } from "./progress_heartbeat.ts";
import { ProtocolError, readCallParams } from "./read_call_params.ts";
import { screenParams } from "./screen_params.ts";
import { forwardToolLines, type LogLevel, readLevelParams } from "./server_log.ts";
import { LineTransport } from "./server_line_transport.ts";

/** What {@link createToolServer} serves. */
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

/** The SDK server answering replio's MCP methods, and the calls it still runs. */
export interface ToolServer {
  server: Server;
  /** Resolves once every `tools/call` started so far has ended. */
  settled(): Promise<void>;
  /** Whether a `tools/call` is running. */
  isBusy(): boolean;
}

/** The methods `replio mcp` answers; any other request is -32601 naming them. */
const SERVED_METHODS = "initialize, ping, logging/setLevel, tools/list and tools/call";

/**
 * An MCP server for the registry's visible tools, not yet connected: `tools/list`, `tools/call`,
 * `logging/setLevel` and `ping` (the SDK's), and -32601 for every other request. A running
 * tool's live lines go to the client as `notifications/message` at the level it set.
 */
export function createToolServer(options: McpServeOptions): ToolServer {
  const { registry, policy, config, worktree } = options;
  const server = new Server(
    { name: "replio", version: options.version },
    { capabilities: { tools: { listChanged: true }, logging: {} } },
  );
  // The SDK's own handler takes any level silently and keeps it by transport session; replio
  // answers a bad level with -32602 and keeps one level per server (one server per session).
  server.removeRequestHandler("logging/setLevel");
  let minimumLevel: LogLevel | null = null;
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
    if (request.method === "logging/setLevel") {
      minimumLevel = readLevelParams(request.params);
      return Promise.resolve({});
    }
    if (request.method !== "tools/call") {
      throw new ProtocolError(
        ErrorCode.MethodNotFound,
        `Method not found: "${request.method}": replio mcp serves ${SERVED_METHODS}`,
      );
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
    const log = forwardToolLines({
      tool: params.name,
      minimum: () => minimumLevel,
      send: (notification) => extra.sendNotification(notification),
    });
    const call = invokeTool({
      registry,
      policy,
      ctx: createToolContext({
        config,
        worktree,
        signal: extra.signal,
        progress: (lines) => {
          heartbeat?.report(lines.at(-1) ?? "");
          log(lines);
        },
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
  return {
    server,
    settled: async () => void await Promise.all(running),
    isBusy: () => running.size > 0,
  };
}

/**
 * Answers on stdin and stdout until the client closes stdin, then waits until every call still
 * running has been cancelled and has ended.
 */
export async function serveToolsOverStdio(options: McpServeOptions): Promise<void> {
  const { server, settled } = createToolServer(options);
  const closed = new Promise<void>((resolve) => server.onclose = resolve);
  await server.connect(
    new LineTransport({
      input: Deno.stdin.readable,
      output: Deno.stdout.writable,
      screen: screenParams,
    }),
  );
  await closed;
  // Closing aborted every running call's signal; let each end (its processes killed).
  await settled();
}
