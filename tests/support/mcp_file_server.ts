/**
 * An MCP server on stdio for the read-only mode tests, written with the SDK, working in its
 * current folder: `write_file(path, text)` writes a file and carries no annotations;
 * `run_command(command)` runs `sh -c command` and is annotated `readOnlyHint: false`;
 * `read_file(path)` returns a file's text and is annotated `readOnlyHint: true`.
 * Run it with `deno run -A tests/support/mcp_file_server.ts`.
 * @module
 */
import process from "node:process";
import { loadMcpSdk } from "../../src/mcp/mod.ts";

const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } =
  await loadMcpSdk();

const server = new Server({ name: "files", version: "1.0.0" }, { capabilities: { tools: {} } });

const PATH = { type: "string", description: "File path, relative to the server's folder" };

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "write_file",
      description: "Write text to a file",
      inputSchema: {
        type: "object" as const,
        properties: { path: PATH, text: { type: "string", description: "The text" } },
        required: ["path", "text"],
      },
    },
    {
      name: "run_command",
      description: "Run a shell command",
      inputSchema: {
        type: "object" as const,
        properties: { command: { type: "string", description: "The command" } },
        required: ["command"],
      },
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    {
      name: "read_file",
      description: "Read a file's text",
      inputSchema: { type: "object" as const, properties: { path: PATH }, required: ["path"] },
      annotations: { readOnlyHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  const text = (value: string) => ({ content: [{ type: "text", text: value }] });
  switch (request.params.name) {
    case "write_file":
      await Deno.writeTextFile(String(args.path), String(args.text));
      return text(`wrote ${args.path}`);
    case "run_command": {
      const { code } = await new Deno.Command("sh", { args: ["-c", String(args.command)] })
        .output();
      return text(`exit ${code}`);
    }
    case "read_file":
      return text(await Deno.readTextFile(String(args.path)));
    default:
      return { ...text(`Unknown tool "${request.params.name}"`), isError: true };
  }
});

process.stdin.once("end", () => Deno.exit(0));
await server.connect(new StdioServerTransport(process.stdin, process.stdout));
