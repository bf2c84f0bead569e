/**
 * An MCP server on stdio that will not go quietly, for the process clean-up tests: it survives
 * SIGTERM (noting each one in `<dir>/server.term`) and the end of its stdin, and starts a child
 * that ignores SIGTERM (`sh`'s `trap "" TERM`, kept across its `exec sleep`). Before it serves
 * it writes its pid to `<dir>/server.pid` and the child's to `<dir>/child.pid`; its one tool
 * `ping` answers `pong`. Run it with `deno run -A tests/support/mcp_stubborn_server.ts DIR`.
 * @module
 */
import process from "node:process";
import { join } from "node:path";
import { loadMcpSdk } from "../../src/mcp/mod.ts";

const dir = Deno.args[0]!;
const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } =
  await loadMcpSdk();

Deno.addSignalListener("SIGTERM", () => {
  Deno.writeTextFileSync(join(dir, "server.term"), "SIGTERM\n", { append: true });
});
// Nothing else may keep it alive once stdin ends: a server that outlives its client.
setInterval(() => {}, 1 << 30);

const child = new Deno.Command("sh", {
  args: ["-c", 'trap "" TERM; exec sleep 600'],
  stdin: "null",
  stdout: "null",
  stderr: "null",
}).spawn();
/** Written whole or not at all: a test that sees the file reads the pid. */
async function writePid(name: string, pid: number): Promise<void> {
  await Deno.writeTextFile(join(dir, `${name}.tmp`), `${pid}\n`);
  await Deno.rename(join(dir, `${name}.tmp`), join(dir, name));
}
await writePid("child.pid", child.pid);
await writePid("server.pid", Deno.pid);

const server = new Server({ name: "stubborn", version: "1.0.0" }, {
  capabilities: { tools: {} },
});
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{
    name: "ping",
    description: "Answer pong",
    inputSchema: { type: "object" as const, properties: {} },
  }],
}));
server.setRequestHandler(CallToolRequestSchema, () => ({
  content: [{ type: "text", text: "pong" }],
}));
await server.connect(new StdioServerTransport(process.stdin, process.stdout));
