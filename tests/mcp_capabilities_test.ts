/**
 * replio as an MCP client that answers its servers (issue #24): elicitation forms, roots and
 * sampling, images and structuredContent in results. The server is a real SDK process
 * (tests/support/mcp_capabilities_server.ts) that writes what it received to a file; the model
 * is the scripted mock on 127.0.0.1; the REPL runs in tmux.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";
import { RED_DOT_PNG } from "./support/mcp_capabilities_fixture.ts";

const CAPS_SERVER = new URL("./support/mcp_capabilities_server.ts", import.meta.url).pathname;

/** The global config of a worktree whose `caps` server runs tests/support's server. */
function globalConfig(extra: string): string {
  return [
    "mcp_servers:",
    "  caps:",
    `    command: ${JSON.stringify(Deno.execPath())}`,
    `    args: [run, -A, ${JSON.stringify(CAPS_SERVER)}]`,
    // The server's tools themselves run without asking: the tests are about its requests.
    "tool_permission:",
    "  mcp: allow",
    extra,
  ].join("\n") + "\n";
}

/** A worktree with `caps` in its global config folder (`<worktree>/<xdg>/replio`). */
async function capsWorktree(extra = "", xdg = ".xdg") {
  const wt = await tempWorktree({ "README.md": "# Demo\n" });
  await wt.write(`${xdg}/replio/config.yaml`, globalConfig(extra));
  return wt;
}

/** What the server wrote it received from replio for `tool`. */
async function received(worktree: string, tool: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(join(worktree, `received-${tool}.json`)));
}

/** One headless `replio run` turn against the mock, which calls `tool` and then answers. */
async function runTurn(worktree: string, baseUrl: string, ...flags: string[]) {
  return await runReplio(
    ["run", "use the tool", "--base-url", baseUrl, "--model", "mock-model", ...flags],
    { cwd: worktree },
  );
}

/** The text of the tool message in a request the model received. */
function toolMessage(messages: readonly { role: string; content: unknown }[]): string {
  return String(messages.find((m) => m.role === "tool")?.content);
}

Deno.test("mcp client declares exactly elicitation (form), roots and sampling in initialize", async () => {
  await using wt = await capsWorktree();
  // A call waits for its server, which has been initialized by then.
  const called = await runReplio(["tool", "mcp__caps__list_roots"], { cwd: wt.path });
  assert.equal(called.code, 0, called.stderr);
  assert.deepEqual(await received(wt.path, "initialize"), {
    elicitation: { form: {} },
    roots: { listChanged: false },
    sampling: {},
  });
});

Deno.test("mcp roots/list answers the worktree as a file:// URI", async () => {
  await using wt = await capsWorktree();
  const result = await runReplio(["tool", "mcp__caps__list_roots"], { cwd: wt.path });
  assert.equal(result.code, 0, result.stderr);
  const name = wt.path.split("/").pop();
  assert.deepEqual(await received(wt.path, "list_roots"), {
    roots: [{ uri: `file://${wt.path}`, name }],
  });
});

Deno.test("mcp elicitation in a headless run is declined, and the model reads why", async () => {
  await using wt = await capsWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__ask_form", arguments: {} }] },
    { text: "I could not ask." },
  ]);
  const result = await runTurn(wt.path, mock.baseUrl);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(await received(wt.path, "ask_form"), { action: "decline" });
  assert.equal(
    toolMessage(mock.requests[1]!.messages),
    'ask_form got: {"action":"decline"}\n' +
      'replio declined the request for input of MCP server "caps" ("Who should get the ' +
      'report?"): no person can answer in this run: if the information is needed, ask the ' +
      "user for it in your answer",
  );
  assert.deepEqual(mock.violations, []);
});

Deno.test("mcp sampling headless without --yes is refused: the model never gets the server's prompt", async () => {
  await using wt = await capsWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__sample", arguments: { prompt: "Say forty-two" } }] },
    { text: "Done." },
  ]);
  const result = await runTurn(wt.path, mock.baseUrl);
  assert.equal(result.code, 0, result.stderr);
  const why = "it needs confirmation (tool_permission.mcp_sampling) and this headless run " +
    "cannot ask: the operator can rerun with --yes";
  assert.deepEqual(await received(wt.path, "sample"), {
    error: `MCP error -1: MCP error -1: Sampling refused: ${why}`,
  });
  // Two requests, both the turn's own: none carried the server's prompt.
  assert.equal(mock.requests.length, 2);
  assert.ok(!JSON.stringify(mock.requests).includes('Say forty-two"}]'));
  assert.match(
    toolMessage(mock.requests[1]!.messages),
    new RegExp(
      `\\nreplio refused the request of MCP server "caps" to use the model \\(sampling\\): ${
        why.replace(/[()]/g, "\\$&")
      }$`,
    ),
  );
});

Deno.test("mcp sampling with --yes (the control) asks the mock model without tools and the server gets its text", async () => {
  await using wt = await capsWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__sample", arguments: { prompt: "Say forty-two" } }] },
    { text: "forty-two" },
    { text: "Done." },
  ]);
  const result = await runTurn(wt.path, mock.baseUrl, "--yes");
  assert.equal(result.code, 0, result.stderr);
  const sampling = mock.requests[1]!;
  assert.deepEqual(sampling.messages, [{ role: "user", content: "Say forty-two" }]);
  assert.equal(sampling.tools, undefined, "the sampled request carries no tools");
  assert.equal(sampling.stream, false);
  assert.deepEqual(await received(wt.path, "sample"), {
    model: "mock-model",
    role: "assistant",
    content: { type: "text", text: "forty-two" },
    stopReason: "endTurn",
  });
  assert.equal(
    toolMessage(mock.requests[2]!.messages),
    'sample got: {"model":"mock-model","stopReason":"endTurn","role":"assistant",' +
      '"content":{"type":"text","text":"forty-two"}}',
  );
});

Deno.test("mcp sampling follows tool_permission.mcp_sampling: deny refuses even with --yes, allow needs no --yes", async () => {
  await using denying = await capsWorktree("  mcp_sampling: deny");
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__sample", arguments: { prompt: "Say forty-two" } }] },
    { text: "Done." },
  ]);
  assert.equal((await runTurn(denying.path, mock.baseUrl, "--yes")).code, 0);
  assert.deepEqual(await received(denying.path, "sample"), {
    error: "MCP error -1: MCP error -1: Sampling refused: tool_permission.mcp_sampling is deny",
  });
  assert.equal(mock.requests.length, 2);

  await using allowing = await capsWorktree("  mcp_sampling: allow");
  mock.push(
    { toolCalls: [{ name: "mcp__caps__sample", arguments: { prompt: "Say forty-two" } }] },
    { text: "forty-two" },
    { text: "Done." },
  );
  assert.equal((await runTurn(allowing.path, mock.baseUrl)).code, 0);
  assert.equal(
    (await received(allowing.path, "sample") as { content: { text: string } }).content.text,
    "forty-two",
  );
});

Deno.test("mcp images reach the model as an image part with mcp_images on; structuredContent follows the content", async () => {
  await using wt = await capsWorktree("mcp_images: true");
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__picture", arguments: {} }] },
    { text: "A red dot." },
  ]);
  const result = await runTurn(wt.path, mock.baseUrl);
  assert.equal(result.code, 0, result.stderr);
  const messages = mock.requests[1]!.messages as { role: string; content: unknown }[];
  assert.equal(
    toolMessage(messages),
    "A red dot\n[image: image/png, 70 bytes, attached after the tool results]\n" +
      'structuredContent: {"width":1,"height":1,"color":"red"}',
  );
  const callId = (messages.find((m) => m.role === "tool") as unknown as { tool_call_id: string })
    .tool_call_id;
  assert.deepEqual(messages.at(-1), {
    role: "user",
    content: [
      {
        type: "text",
        text: `Images from the result of mcp__caps__picture (call ${callId}), in order:`,
      },
      { type: "image_url", image_url: { url: `data:image/png;base64,${RED_DOT_PNG}` } },
    ],
  });
  assert.deepEqual(mock.violations, []);
});

Deno.test("mcp images stay one line with mcp_images off (the default), saying why", async () => {
  await using wt = await capsWorktree();
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__picture", arguments: {} }] },
    { text: "A red dot." },
  ]);
  assert.equal((await runTurn(wt.path, mock.baseUrl)).code, 0);
  const messages = mock.requests[1]!.messages as { role: string; content: unknown }[];
  assert.equal(
    toolMessage(messages),
    "A red dot\n[image: image/png, 70 bytes, not shown: mcp_images is off]\n" +
      'structuredContent: {"width":1,"height":1,"color":"red"}',
  );
  assert.equal(messages.at(-1)!.role, "tool", "no image message follows");
});

Deno.test("mcp elicitation and sampling in the REPL: the person fills the form, declines one, allows sampling", async () => {
  await using wt = await capsWorktree("", ".test-xdg");
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__caps__ask_form", arguments: {} }] },
    { text: "Sent to Ada." },
    { toolCalls: [{ name: "mcp__caps__ask_form", arguments: {} }] },
    { text: "Not sent." },
    { toolCalls: [{ name: "mcp__caps__sample", arguments: { prompt: "Say forty-two" } }] },
    { text: "forty-two" },
    { text: "The server got it." },
  ]);
  await using repl = await TmuxRepl.start(wt.path, [
    "--base-url",
    mock.baseUrl,
    "--model",
    "mock-model",
  ], { noColor: true });

  await repl.enter("send the report");
  await repl.waitFor('MCP server "caps" asks: Who should get the report?');
  await repl.waitFor(
    "Its form has 3 fields: Recipient (text), copies (whole number), format (choice)",
  );
  await repl.enter("1");
  await repl.waitFor("Give text, at least 2 characters; required");
  await repl.enter("A");
  // The schema's minLength: the field is asked again, saying what was wrong.
  await repl.waitFor("it has 1 characters, fewer than 2: give text");
  await repl.enter("Ada");
  await repl.waitFor("copies: How many copies");
  await repl.enter("");
  await repl.waitFor("Give one of the choices; required");
  await repl.enter("2");
  await repl.waitFor("Sent to Ada.");
  await repl.waitForPrompt();
  assert.deepEqual(await received(wt.path, "ask_form"), {
    action: "accept",
    content: { recipient: "Ada", copies: 1, format: "html" },
  });

  await repl.enter("send it again");
  await repl.waitFor(/asks: Who should get the report\?[\s\S]*asks: Who should get the report\?/);
  await repl.enter("decline");
  await repl.waitFor("Not sent.");
  await repl.waitForPrompt();
  assert.deepEqual(await received(wt.path, "ask_form"), { action: "decline" });
  assert.match(
    toolMessage(mock.requests[3]!.messages.slice(-1)),
    /\nThe user declined the request for input of MCP server "caps" \("Who should get the report\?"\): do not ask for it again through that tool$/,
  );

  await repl.enter("ask the model through the server");
  await repl.waitFor('MCP server "caps" asks to use the model (sampling): allow it?');
  await repl.waitFor("Prompt: Say forty-two; 1 message, up to 100 tokens asked");
  await repl.enter("y");
  await repl.waitFor("The server got it.");
  assert.equal(
    (await received(wt.path, "sample") as { content: { text: string } }).content.text,
    "forty-two",
  );
  assert.deepEqual(mock.violations, []);
});
