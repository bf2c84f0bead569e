/**
 * A tiny MCP server on stdio for tests, written with the SDK: `echo(text)` returns the text,
 * `add(a, b)` returns the sum, `crash()` (with `--with-crash`) makes the process exit with code 3 mid-call. Run it with
 * `deno run -A tests/support/mcp_echo_server.ts [--with-crash] [--start-when FILE]
 * [--start-once MARKER]`; `--start-when` holds back the connection until FILE exists (relative to
 * the server's working directory), as a slow server would, for as long as the test wants, and
 * `--start-once` makes every start after the first fail.
 * @module
 */
import process from "node:process";
import { loadMcpSdk } from "../../src/mcp/mod.ts";

const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } =
  await loadMcpSdk();

const CRASH = {
  name: "crash",
  description: "Exit the server process with code 3",
  inputSchema: { type: "object" as const, properties: {} },
};

const server = new Server({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "echo",
      description: "Return the text unchanged",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", description: "Text to return" } },
        required: ["text"],
      },
    },
    {
      name: "add",
      description: "Add two numbers",
      inputSchema: {
        type: "object",
        properties: {
          a: { type: "number", description: "First addend" },
          b: { type: "number", description: "Second addend" },
        },
        required: ["a", "b"],
      },
    },
    ...(Deno.args.includes("--with-crash") ? [CRASH] : []),
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (request.params.name === "crash") Deno.exit(3);
  const args = request.params.arguments ?? {};
  const text = request.params.name === "echo"
    ? String(args.text)
    : request.params.name === "add"
    ? String(Number(args.a) + Number(args.b))
    : null;
  return text === null
    ? { content: [{ type: "text", text: `Unknown tool "${request.params.name}"` }], isError: true }
    : { content: [{ type: "text", text }] };
});

process.stdin.once("end", () => Deno.exit(0));
// A server that starts once: a restart finds the marker file and fails, as a broken one would.
const onceAt = Deno.args.indexOf("--start-once");
if (onceAt !== -1) {
  const marker = Deno.args[onceAt + 1]!;
  try {
    await Deno.writeTextFile(marker, "started\n", { createNew: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    Deno.stderr.writeSync(
      new TextEncoder().encode(`echo: ${marker} exists: this server starts only once\n`),
    );
    Deno.exit(4);
  }
}
const whenAt = Deno.args.indexOf("--start-when");
if (whenAt !== -1) {
  const file = Deno.args[whenAt + 1]!;
  // Checked again every few milliseconds: the interval sets how soon it starts, not whether.
  while (!await Deno.stat(file).then(() => true, () => false)) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
await server.connect(new StdioServerTransport(process.stdin, process.stdout));
