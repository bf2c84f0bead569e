/**
 * Runs replio's npm code once along each path that loads it, for tests/compile_excludes_run_test.ts:
 * that test starts this program over a Deno cache from which the files `deno task compile` leaves
 * out of the binary were deleted, so a path that still needed one of them fails here. Arguments
 * are npm specifiers to import besides (every one the product's module graph names). Prints one
 * `ok <step>` line per step; any failure ends the program with its error.
 * @module
 */
import { htmlToMarkdown } from "../../plugins/core-web/_html_to_markdown.ts";
import { pdfToText } from "../../plugins/core-web/_pdf_to_text.ts";
import { makePdf } from "../../plugins/core-web/_test_pdf.ts";
import { loadShell } from "../../plugins/core-exec/_shell_tree.ts";
import { compileGlob } from "../../plugins/core-fs/_match_glob.ts";
import { lineChanges } from "../../plugins/core-edit/_line_changes.ts";
import { parseYaml } from "../../src/config/plain_yaml.ts";
import { toJavaScript } from "../../src/plugins/strip_types.ts";
import { loadMcpSdk } from "../../src/mcp/mod.ts";

const encoder = new TextEncoder();
const say = (step: string) => Deno.stdout.writeSync(encoder.encode(`ok ${step}\n`));
const expect = (isMet: boolean, what: string) => {
  if (!isMet) throw new Error(`Exercise failed: ${what}`);
};

for (const specifier of Deno.args) {
  await import(specifier);
  say(`import ${specifier}`);
}

const page = await htmlToMarkdown(
  "<html><head><title>Page</title></head><body><article><h1>Heading</h1>" +
    "<p>Some <b>bold</b> text, long enough for Readability to keep it as the article.</p>" +
    "<table><tr><th>a</th></tr><tr><td>1</td></tr></table><pre><code>x = 1</code></pre>" +
    "</article></body></html>",
  new URL("https://example.com/page"),
);
expect(JSON.stringify(page).includes("**bold**"), `HTML to Markdown: ${JSON.stringify(page)}`);
say("html to markdown (linkedom, readability, turndown)");

const pdf = await pdfToText(makePdf([["first page"], ["second page"]], "Title"));
expect(JSON.stringify(pdf).includes("second page"), `PDF to text: ${JSON.stringify(pdf)}`);
say("pdf to text (unpdf)");

const shell = await loadShell();
expect(shell.redirectOps.size > 0 && !!shell.parse("echo hi | grep h > out"), "shell parse");
say("shell parse (mvdan-sh)");

expect((await compileGlob("src/**/*.ts"))("src/a/b.ts"), "glob match");
say("glob (picomatch)");

const { default: ignore } = await import("ignore");
expect(ignore().add("*.log").ignores("a.log"), "ignore rules");
say("ignore rules (ignore)");

const changes = await lineChanges({
  body: "a\nb\nc\n",
  starts: [2],
  oldLength: 1,
  replacement: "B\nB2",
});
expect(changes.length > 0, `line changes: ${JSON.stringify(changes)}`);
say("line changes (diff)");

expect(
  JSON.stringify(await parseYaml("a: [1, 2]\nb: {c: d}\n")) === '{"a":[1,2],"b":{"c":"d"}}',
  "yaml",
);
say("yaml");

const { Type } = await import("@sinclair/typebox");
const { Value } = await import("@sinclair/typebox/value");
expect(Value.Check(Type.Object({ n: Type.Integer() }), { n: 1 }), "typebox check");
say("schema check (typebox)");

expect(
  (await toJavaScript("const n: number = 1;\nexport { n };\n", "p.ts")).includes("const n"),
  "strip",
);
say("strip types (sucrase)");

const sdk = await loadMcpSdk();
const server = new sdk.Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
  tools: [{ name: "echo", inputSchema: { type: "object", properties: {} } }],
}));
const client = new sdk.Client({ name: "c", version: "1" });
const [clientSide, serverSide] = linkedTransports();
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
const { tools } = await client.listTools();
expect(tools[0]?.name === "echo", `MCP tools/list: ${JSON.stringify(tools)}`);
await client.close();
say("mcp client and server (sdk, zod, ajv)");

/** Two MCP transports joined to each other in memory (the SDK's own one is outside replio's graph). */
function linkedTransports(): [
  import("../../src/mcp/_sdk.ts").Transport,
  import("../../src/mcp/_sdk.ts").Transport,
] {
  type Transport = import("../../src/mcp/_sdk.ts").Transport;
  const make = (): Transport & { peer?: Transport } => ({
    start: () => Promise.resolve(),
    send(message) {
      const peer = this.peer;
      queueMicrotask(() => peer?.onmessage?.(message));
      return Promise.resolve();
    },
    close() {
      this.onclose?.();
      return Promise.resolve();
    },
  });
  const a = make();
  const b = make();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
