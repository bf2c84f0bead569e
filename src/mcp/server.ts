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
import {
  CallToolRequestSchema,
  type CallToolResult,
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
}

/** Answers `tools/list` and `tools/call` on stdin and stdout until the client closes stdin. */
export async function serveToolsOverStdio(options: McpServeOptions): Promise<void> {
  const { registry, policy, config, worktree } = options;
  const server = new Server(
    { name: "replio", version: options.version },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: registry.list().filter((tool) => policy.isVisible(tool)).map((tool): McpTool => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.parameters as McpTool["inputSchema"],
    })),
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    async (request, extra): Promise<CallToolResult> => {
      const outcome = await invokeTool({
        registry,
        policy,
        ctx: createToolContext({ config, worktree, signal: extra.signal }),
        sink: new CollectingSink(),
      }, {
        id: `mcp_${extra.requestId}`,
        name: request.params.name,
        arguments: request.params.arguments ?? {},
      });
      return { content: [{ type: "text", text: outcome.output }], isError: outcome.isError };
    },
  );
  const closed = new Promise<void>((resolve) => server.onclose = resolve);
  // The SDK's stdio transport keeps reading after EOF; a client that closes stdin is gone.
  process.stdin.once("end", () => void server.close());
  await server.connect(new StdioServerTransport(process.stdin, process.stdout));
  await closed;
}
