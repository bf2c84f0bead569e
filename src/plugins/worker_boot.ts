/**
 * The code every plugin Worker starts with. It imports the plugin module (a `blob:` URL of the
 * fetched, type-stripped source), reports its tools as plain data, then runs calls: each call
 * gets its own AbortSignal and its result or error goes back as a message. Import failures are
 * reported as a message too, so nothing is left uncaught in the Worker.
 * @module
 */

/** Spec fields that cross the boundary; functions (status, permissionFn, note) cannot. */
const SPEC_FIELDS = [
  "name",
  "description",
  "parameters",
  "category",
  "permission",
  "pathArg",
  "keyArg",
  "glyph",
  "verb",
  "echo",
  "short",
  "aliases",
  "paramAliases",
  "refine",
];

/** The Worker's entry module for a plugin module at `pluginUrl`. */
export function workerBootSource(pluginUrl: string): string {
  return `const FIELDS = ${JSON.stringify(SPEC_FIELDS)};
// A stray error outside any call (a timer's throw, an unawaited rejection) must not reach Deno's
// reporter, which would print over replio's own output; the calls in flight still answer.
self.addEventListener("error", (event) => event.preventDefault());
self.addEventListener("unhandledrejection", (event) => event.preventDefault());
let plugin;
try {
  plugin = (await import(${JSON.stringify(pluginUrl)})).plugin;
  if (!plugin || typeof plugin.name !== "string" || !Array.isArray(plugin.tools)) {
    throw new TypeError("it does not export \`plugin\` with a name and tools: see docs/plugins.md");
  }
  const tools = plugin.tools.map((tool) => {
    const spec = {};
    for (const field of FIELDS) if (tool?.spec?.[field] !== undefined) spec[field] = tool.spec[field];
    return { spec, hasHandler: typeof tool?.handler === "function" };
  });
  postMessage({ type: "ready", name: plugin.name, tools: JSON.parse(JSON.stringify(tools)) });
} catch (error) {
  postMessage({ type: "load_error", message: String(error?.message ?? error) });
  plugin = undefined;
}
const running = new Map();
self.onmessage = async ({ data }) => {
  if (data.type === "abort") return running.get(data.id)?.abort();
  if (data.type !== "call" || !plugin) return;
  const controller = new AbortController();
  running.set(data.id, controller);
  try {
    const tool = plugin.tools.find((t) => t.spec.name === data.tool);
    const ctx = { worktree: data.worktree, signal: controller.signal };
    const value = await tool.handler(data.args, ctx);
    postMessage({ type: "result", id: data.id, ok: true, value: String(value) });
  } catch (error) {
    postMessage({
      type: "result",
      id: data.id,
      ok: false,
      name: String(error?.name ?? "Error"),
      message: String(error?.message ?? error),
    });
  } finally {
    running.delete(data.id);
  }
};
`;
}
