/**
 * An MCP server on stdio for tests of replio's client capabilities, written with the SDK. Each
 * tool sends its client a request while it runs and reports what came back, in its result and
 * in a file `received-<tool>.json` in its working directory (what the server really got):
 *
 * - `ask_form`: `elicitation/create` with a form of a text field, a whole number with a default
 *   and a choice; reports the action and the values.
 * - `list_roots`: `roots/list`; reports the roots.
 * - `sample(prompt)`: `sampling/createMessage` with the prompt; reports the text or the error.
 * - `picture`: no request; returns a text block, a 1×1 PNG and `structuredContent`.
 *
 * The capabilities the client declared in `initialize` go to `received-initialize.json`.
 *
 * Run it with `deno run -A tests/support/mcp_capabilities_server.ts`.
 * @module
 */
import process from "node:process";
import { loadMcpSdk } from "../../src/mcp/mod.ts";
import { FORM, RED_DOT_PNG } from "./mcp_capabilities_fixture.ts";

const { CallToolRequestSchema, ListToolsRequestSchema, Server, StdioServerTransport } =
  await loadMcpSdk();

const NO_ARGS = { type: "object" as const, properties: {} };

const server = new Server({ name: "caps", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "ask_form", description: "Ask the user who gets the report", inputSchema: NO_ARGS },
    { name: "list_roots", description: "List the client's roots", inputSchema: NO_ARGS },
    {
      name: "sample",
      description: "Ask the client's model",
      inputSchema: {
        type: "object",
        properties: { prompt: { type: "string", description: "What to ask" } },
        required: ["prompt"],
      },
    },
    { name: "picture", description: "Return a picture", inputSchema: NO_ARGS },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const name = request.params.name;
  let received: unknown;
  try {
    switch (name) {
      case "ask_form":
        received = await server.elicitInput(FORM);
        break;
      case "list_roots":
        received = await server.listRoots();
        break;
      case "sample":
        received = await server.createMessage({
          messages: [{
            role: "user",
            content: { type: "text", text: String(request.params.arguments?.prompt) },
          }],
          maxTokens: 100,
        });
        break;
      case "picture":
        return {
          content: [
            { type: "text", text: "A red dot" },
            { type: "image", mimeType: "image/png", data: RED_DOT_PNG },
          ],
          structuredContent: { width: 1, height: 1, color: "red" },
        };
      default:
        return { content: [{ type: "text", text: `Unknown tool "${name}"` }], isError: true };
    }
  } catch (error) {
    received = { error: error instanceof Error ? error.message : String(error) };
  }
  await Deno.writeTextFile(`received-${name}.json`, JSON.stringify(received));
  return { content: [{ type: "text", text: `${name} got: ${JSON.stringify(received)}` }] };
});

// What the client declared, for the test of what replio declares.
server.oninitialized = () => {
  Deno.writeTextFileSync(
    "received-initialize.json",
    JSON.stringify(server.getClientCapabilities()),
  );
};

process.stdin.once("end", () => Deno.exit(0));
await server.connect(new StdioServerTransport(process.stdin, process.stdout));
