/**
 * ToolRegistry rules of spec/tools.md §Registration metadata and DESIGN.md §3, each with the
 * exact text the model gets.
 */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { defineTool, type PluginTool } from "../src/plugins/api.ts";
import {
  createToolContext,
  invokeTool,
  type ToolArgs,
  type ToolContext,
  ToolPolicy,
  ToolRegistry,
} from "../src/tools/mod.ts";
import type { ConfigKey } from "../src/config/mod.ts";
import { configWith, RecordingSink } from "./support/worktree.ts";

async function contextWith(
  values: Partial<Record<ConfigKey, unknown>> = {},
  signal = new AbortController().signal,
): Promise<ToolContext> {
  return createToolContext({ config: await configWith(values), worktree: "/w", signal });
}

/** The last arguments and context the `page` tool's handler received. */
const received: { args?: ToolArgs; ctx?: ToolContext } = {};

const PAGE = defineTool({
  name: "page",
  description: "Read a window of a file",
  parameters: Type.Object({
    path: Type.String({ description: "File" }),
    offset: Type.Optional(Type.Integer({ description: "First line", minimum: 1, default: 1 })),
    limit: Type.Optional(Type.Integer({ description: "Lines", minimum: 0 })),
    mode: Type.Optional(Type.Union([Type.Literal("text"), Type.Literal("raw")], {
      description: "How",
    })),
  }),
  category: "read",
  permission: "read",
  pathArg: "path",
  keyArg: "path",
  glyph: "←",
  verb: "Page",
  short: "Page through a file",
  echo: false,
  aliases: ["read_page", { name: "page_head", args: { offset: 1, limit: 10 } }],
  paramAliases: { cursor: "offset", file: "path" },
  note: (result) => result === "(empty file)",
  refine: "path",
  status: (args) => `page ${args.path}`,
}, (args, ctx) => {
  received.args = args;
  received.ctx = ctx;
  return `paged ${JSON.stringify(args)}`;
});

function registryOf(...tools: PluginTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const { spec, handler } of tools) registry.register(spec, handler);
  return registry;
}

function echoTool(name: string, handler: (args: ToolArgs) => string | Promise<string>) {
  return defineTool({
    name,
    description: `Echo tool ${name}`,
    parameters: Type.Object({ text: Type.Optional(Type.String({ description: "Text" })) }),
    category: "read",
    permission: "read",
  }, handler);
}

Deno.test("ToolRegistry.register keeps every metadata key of the spec", () => {
  const tool = registryOf(PAGE).lookup("page")!.tool;
  const { handler, ...spec } = tool;
  assert.equal(typeof handler, "function");
  assert.deepEqual(spec, PAGE.spec);
  assert.deepEqual(Object.keys(spec).sort(), [
    "aliases",
    "category",
    "description",
    "echo",
    "glyph",
    "keyArg",
    "name",
    "note",
    "paramAliases",
    "parameters",
    "pathArg",
    "permission",
    "refine",
    "short",
    "status",
    "verb",
  ]);
});

Deno.test("ToolRegistry.register refuses a name or alias already taken", () => {
  const registry = registryOf(PAGE);
  assert.throws(
    () => registry.register({ ...echoTool("page", () => "").spec }, () => ""),
    new TypeError('Cannot register tool "page": the name "page" is taken'),
  );
  assert.throws(
    () =>
      registry.register({ ...echoTool("other", () => "").spec, aliases: ["read_page"] }, () => ""),
    new TypeError('Cannot register tool "other": the name "read_page" is taken'),
  );
  assert.throws(
    () => registry.register({ ...echoTool("page_head", () => "").spec }, () => ""),
    new TypeError('Cannot register tool "page_head": the name "page_head" is taken'),
  );
});

Deno.test("ToolRegistry.schemas never advertises aliases", () => {
  const registry = registryOf(PAGE, echoTool("echo", () => ""));
  assert.deepEqual(registry.list().map((t) => t.name), ["page", "echo"]);
  assert.deepEqual(registry.schemas(() => true), [
    {
      type: "function",
      function: {
        name: "page",
        description: "Read a window of a file",
        parameters: PAGE.spec.parameters,
      },
    },
    {
      type: "function",
      function: {
        name: "echo",
        description: "Echo tool echo",
        parameters: echoTool("echo", () => "").spec.parameters,
      },
    },
  ]);
});

Deno.test("ToolRegistry.schemas lists only tools the policy does not deny", async () => {
  const registry = registryOf(
    PAGE,
    echoTool("echo", () => ""),
    defineTool(
      { ...echoTool("shell", () => "").spec, category: "exec", permission: "bash" },
      () => "",
    ),
    defineTool(
      { ...echoTool("save", () => "").spec, category: "write", permission: "edit" },
      () => "",
    ),
  );
  const policy = new ToolPolicy({
    config: await configWith({ "tools.deny": ["echo"] }),
    worktree: "/w",
    mode: "plan",
  });
  assert.deepEqual(registry.schemas((t) => policy.isVisible(t)).map((s) => s.function.name), [
    "page",
  ]);
  const bashAsk = new ToolPolicy({ config: await configWith(), worktree: "/w" });
  assert.deepEqual(registry.schemas((t) => bashAsk.isVisible(t)).map((s) => s.function.name), [
    "page",
    "echo",
    "shell",
    "save",
  ]);
});

interface ExecuteCase {
  name: string;
  call: string;
  args: unknown;
  /** What the handler receives; undefined when it must not run. */
  handled?: ToolArgs;
  output: string;
}

const EXECUTE_CASES: ExecuteCase[] = [
  {
    name: "fills schema defaults",
    call: "page",
    args: { path: "a.txt" },
    handled: { path: "a.txt", offset: 1 },
    output: 'paged {"path":"a.txt","offset":1}',
  },
  {
    name: "drops undeclared and null arguments",
    call: "page",
    args: { path: "a.txt", recursive: true, limit: null, depth: null },
    handled: { path: "a.txt", offset: 1 },
    output: 'paged {"path":"a.txt","offset":1}',
  },
  {
    name: "resolves a plain alias at call time",
    call: "read_page",
    args: { path: "a.txt", limit: 5 },
    handled: { path: "a.txt", offset: 1, limit: 5 },
    output: 'paged {"path":"a.txt","offset":1,"limit":5}',
  },
  {
    name: "applies an alias's preset arguments over the caller's",
    call: "page_head",
    args: { path: "a.txt", limit: 99 },
    handled: { path: "a.txt", offset: 1, limit: 10 },
    output: 'paged {"path":"a.txt","offset":1,"limit":10}',
  },
  {
    name: "maps parameter aliases onto declared parameters",
    call: "page",
    args: { file: "a.txt", cursor: 7 },
    handled: { path: "a.txt", offset: 7 },
    output: 'paged {"path":"a.txt","offset":7}',
  },
  {
    name: "prefers the declared parameter over its alias",
    call: "page",
    args: { path: "a.txt", offset: 3, cursor: 7 },
    handled: { path: "a.txt", offset: 3 },
    output: 'paged {"path":"a.txt","offset":3}',
  },
  {
    name: "coerces quoted numbers",
    call: "page",
    args: { path: "a.txt", offset: "4" },
    handled: { path: "a.txt", offset: 4 },
    output: 'paged {"path":"a.txt","offset":4}',
  },
  {
    name: "rejects a missing required argument",
    call: "page",
    args: { offset: 2 },
    output:
      'Error: invalid arguments for page: missing required parameter "path": see the tool\'s parameters and call it again',
  },
  {
    name: "lists every invalid argument",
    call: "page",
    args: { path: 3, offset: 0, limit: "many", mode: "html" },
    output:
      'Error: invalid arguments for page: "path" must be a string, got 3; "offset" must be >= 1, got 0; "limit" must be an integer, got "many"; "mode" must be "text" or "raw", got "html": see the tool\'s parameters and call it again',
  },
  {
    name: "treats a null parameter as absent, so a required one is missing",
    call: "page",
    args: { path: null },
    output:
      'Error: invalid arguments for page: missing required parameter "path": see the tool\'s parameters and call it again',
  },
  {
    name: "rejects arguments that are not an object",
    call: "page",
    args: ["a.txt"],
    output: 'Error: invalid arguments for page: expected a JSON object, got ["a.txt"]',
  },
  {
    name: "names the available tools for an unknown tool, aliases left out",
    call: "view",
    args: {},
    output: 'Error: unknown tool "view". Available tools: page, echo',
  },
];

for (const c of EXECUTE_CASES) {
  Deno.test(`ToolRegistry.execute ${c.name}`, async () => {
    delete received.args;
    const registry = registryOf(PAGE, echoTool("echo", () => ""));
    const result = await registry.execute(c.call, c.args, await contextWith());
    assert.deepEqual(result, { output: c.output, isError: c.output.startsWith("Error:") });
    assert.deepEqual(received.args, c.handled);
  });
}

Deno.test("ToolRegistry.execute hands the handler the config, worktree and abort signal", async () => {
  const controller = new AbortController();
  const ctx = await contextWith({ max_rounds: 9 }, controller.signal);
  await registryOf(PAGE).execute("page", { path: "a" }, ctx);
  assert.equal(received.ctx, ctx);
  assert.equal(received.ctx!.config.get("max_rounds"), 9);
  assert.equal(received.ctx!.worktree, "/w");
  assert.equal(received.ctx!.signal, controller.signal);
  assert.ok(!JSON.stringify(registryOf(PAGE).schemas(() => true)).includes("config"));
});

const THROWN: { name: string; handler: () => string | Promise<string>; output: string }[] = [
  {
    name: "an Error",
    handler: () => {
      throw new RangeError('Cannot read "a": too big: use offset');
    },
    output: 'Error: Cannot read "a": too big: use offset',
  },
  {
    name: "a rejected promise",
    handler: () => Promise.reject(new Error("went away")),
    output: "Error: went away",
  },
  {
    name: "a non-Error value",
    handler: () => {
      throw "plain string";
    },
    output: "Error: plain string",
  },
];

for (const { name, handler, output } of THROWN) {
  Deno.test(`ToolRegistry.execute turns ${name} into an Error: result`, async () => {
    const result = await registryOf(echoTool("boom", handler)).execute(
      "boom",
      {},
      await contextWith(),
    );
    assert.deepEqual(result, { output, isError: true });
  });
}

Deno.test("ToolRegistry.execute never reads failure from the text: a returned Error: line succeeds", async () => {
  // server-everything's get-annotated-message succeeds with the text "Error: Operation failed".
  const tool = echoTool("annotated", () => "Error: Operation failed");
  const result = await registryOf(tool).execute("annotated", {}, await contextWith());
  assert.deepEqual(result, { output: "Error: Operation failed", isError: false });
});

Deno.test("ToolRegistry.execute reports a cancelled call without running it", async () => {
  let ran = false;
  const controller = new AbortController();
  controller.abort();
  const tool = echoTool("slow", () => {
    ran = true;
    return "done";
  });
  const result = await registryOf(tool).execute(
    "slow",
    {},
    await contextWith({}, controller.signal),
  );
  assert.deepEqual(result, { output: "Error: cancelled by the user", isError: true });
  assert.equal(ran, false);
});

const LINES = Array.from({ length: 10 }, (_, i) => `line ${i}`).join("\n"); // 69 chars

const CAPS: { name: string; max: number; text: string; output: string }[] = [
  {
    name: "cuts at a line boundary with the marker",
    max: 20,
    text: LINES,
    output: "line 0\nline 1\n... (truncated)",
  },
  { name: "keeps a result at the cap", max: 69, text: LINES, output: LINES },
  { name: "treats 0 as unlimited", max: 0, text: LINES.repeat(2000), output: LINES.repeat(2000) },
  {
    name: "cuts a single over-long line mid-line",
    max: 10,
    text: "x".repeat(25),
    output: "xxxxxxxxxx\n... (truncated)",
  },
  {
    name: "caps error results too",
    max: 21,
    text: "Error: " + LINES,
    output: "Error: line 0\nline 1\n... (truncated)",
  },
];

for (const { name, max, text, output } of CAPS) {
  Deno.test(`ToolRegistry.execute caps results at tool_max_result_chars: ${name}`, async () => {
    const tool = echoTool("big", () => text);
    const ctx = await contextWith({ tool_max_result_chars: max });
    const result = await registryOf(tool).execute("big", {}, ctx);
    assert.equal(result.output, output);
  });
}

Deno.test("invokeTool reports unparsable JSON arguments as invalid arguments", async () => {
  const config = await configWith();
  const sink = new RecordingSink();
  const outcome = await invokeTool({
    registry: registryOf(PAGE),
    policy: new ToolPolicy({ config, worktree: "/w" }),
    ctx: createToolContext({ config, worktree: "/w", signal: new AbortController().signal }),
    sink,
  }, { id: "c1", name: "page", arguments: '{"path": "a.txt",' });
  assert.equal(
    outcome.output,
    "Error: invalid arguments: the JSON did not parse (Expected double-quoted property name in JSON at position 17 (line 1 column 18)): send the arguments as one JSON object",
  );
  assert.deepEqual(sink.events.map((e) => e.type), ["tool_call", "tool_result"]);
});

Deno.test("invokeTool marks a tool's soft note and emits one call and one result", async () => {
  const config = await configWith();
  const sink = new RecordingSink();
  const empty = defineTool({ ...PAGE.spec, name: "empty", aliases: [] }, () => "(empty file)");
  await invokeTool({
    registry: registryOf(empty),
    policy: new ToolPolicy({ config, worktree: "/w" }),
    ctx: createToolContext({ config, worktree: "/w", signal: new AbortController().signal }),
    sink,
  }, { id: "c1", name: "empty", arguments: { path: "a.txt", cursor: 2 } });
  assert.deepEqual(sink.events.map((e) => e.type), ["tool_call", "permission", "tool_result"]);
  assert.deepEqual(sink.events[0], {
    type: "tool_call",
    id: "c1",
    name: "empty",
    arguments: { path: "a.txt", cursor: 2 },
    activity: {
      glyph: "←",
      verb: "Page",
      key: "a.txt",
      params: { offset: 2 },
      echo: false,
      status: "page a.txt",
    },
    isolation: "in-process",
  });
  assert.deepEqual(sink.events[2], {
    type: "tool_result",
    id: "c1",
    name: "empty",
    output: "(empty file)",
    is_error: false,
    is_note: true,
    isolation: "in-process",
  });
});
