/**
 * An MCP server on stdio for the entry-point battery (tests/security/entry_points_test.ts), with
 * two tools that change the folder it runs in: `touch(name)` creates a file, `write(path,
 * content)` writes one. Neither declares `readOnlyHint`. Run it with
 * `deno run -A tests/support/mcp_battery_server.ts`.
 * @module
 */
import { loadMcpSdk } from "../../src/mcp/mod.ts";

const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } =
  await loadMcpSdk();

const server = new Server({ name: "battery", version: "1.0.0" }, { capabilities: { tools: {} } });
const object = (properties: Record<string, unknown>) => ({ type: "object" as const, properties });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "touch",
      description: "Create a file",
      inputSchema: object({ name: { type: "string" } }),
    },
    {
      name: "write",
      description: "Write a file",
      inputSchema: object({ path: { type: "string" }, content: { type: "string" } }),
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = (request.params.arguments ?? {}) as Record<string, string>;
  if (request.params.name === "touch") Deno.writeTextFileSync(args.name!, "x");
  else Deno.writeTextFileSync(args.path!, args.content!);
  return { content: [{ type: "text", text: "ok" }] };
});

await server.connect(new StdioServerTransport());
