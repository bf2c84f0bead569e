/**
 * The import direction of STYLE.md §1, checked on the real module graph (`deno info --json`):
 * no forbidden edge between areas, no cycle between areas, plugins only through the plugin API.
 */
import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).href;

/** What each area of src/ may import besides itself (all areas may import the leaves `fs` and `schema`). */
const ALLOWED: Record<string, string[]> = {
  cli: ["*"],
  repl: ["engine", "agents", "tools", "providers", "session", "config", "ui", "plugins"],
  serve: ["engine", "tools", "providers", "session", "config", "ui"],
  mcp: ["engine", "tools", "plugins", "config", "ui"],
  agents: ["engine", "tools", "providers", "session", "config", "ui", "plugins"],
  engine: ["tools", "providers", "session", "config", "ui"],
  session: ["providers", "tools", "config", "ui"],
  providers: ["tools", "config"],
  plugins: ["tools", "config", "bundled"],
  tools: ["config", "ui"],
  ui: ["providers", "tools", "config"],
  config: [],
  fs: [],
  schema: [],
};

/** Files whose imports other areas may use only as types (they hold no code). */
const TYPE_ONLY_TARGETS = ["src/ui/events.ts", "src/providers/types.ts", "src/tools/types.ts"];

interface Edge {
  from: string;
  to: string;
}

let graphOnce: Promise<Edge[]> | null = null;

/** The edges between the repository's own modules, dynamic imports included. */
function moduleGraph(): Promise<Edge[]> {
  return graphOnce ??= readModuleGraph();
}

async function readModuleGraph(): Promise<Edge[]> {
  const { stdout, code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: new URL("..", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
    }[];
  };
  const edges: Edge[] = [];
  for (const module of graph.modules) {
    if (!module.specifier.startsWith(ROOT)) continue;
    for (const dep of module.dependencies ?? []) {
      const target = dep.code?.specifier ?? dep.type?.specifier;
      if (target?.startsWith(ROOT)) {
        edges.push({ from: module.specifier.slice(ROOT.length), to: target.slice(ROOT.length) });
      }
    }
  }
  return edges;
}

function areaOf(path: string): string {
  if (path.startsWith("src/")) return path.split("/")[1]!;
  if (path.startsWith("plugins/")) return "bundled";
  return path.split("/")[0]!;
}

Deno.test("architecture: src areas import only the areas below them", async () => {
  const problems: string[] = [];
  for (const { from, to } of await moduleGraph()) {
    const [a, b] = [areaOf(from), areaOf(to)];
    if (!from.startsWith("src/") || a === b || b === "fs" || b === "schema") continue;
    const allowed = ALLOWED[a] ?? [];
    if (allowed.includes("*") || allowed.includes(b)) continue;
    if (TYPE_ONLY_TARGETS.includes(to)) continue;
    problems.push(`${from} → ${to}`);
  }
  assert.deepEqual(problems, []);
});

Deno.test("architecture: bundled plugins import only the plugin API and their own folder", async () => {
  const problems = (await moduleGraph()).filter(({ from, to }) => {
    if (!from.startsWith("plugins/") || from.endsWith("_test.ts")) return false;
    const folder = from.split("/").slice(0, 2).join("/");
    return !to.startsWith(folder + "/") && to !== "src/plugins/api.ts" &&
      to !== "src/tools/types.ts";
  }).map(({ from, to }) => `${from} → ${to}`);
  assert.deepEqual(problems, []);
});

Deno.test("architecture: the engine never imports a renderer and nothing imports the CLI", async () => {
  const problems = (await moduleGraph()).filter(({ from, to }) =>
    (from.startsWith("src/engine/") && to.startsWith("src/ui/") && to !== "src/ui/events.ts") ||
    (to.startsWith("src/cli/") && !from.startsWith("src/cli/") && from !== "main.ts" &&
      !from.startsWith("tests/"))
  ).map(({ from, to }) => `${from} → ${to}`);
  assert.deepEqual(problems, []);
});

/**
 * What `replio run` loads before its first model request: the static imports of main.ts and
 * run.ts. Each npm package or `node:` module there costs every start (commander and Node's
 * shims about 30 ms, TypeBox's builder 20 ms, the first `node:` import 9 ms: docs/performance.md);
 * they belong behind an `await import()` where they are used.
 */
Deno.test("architecture: the path to the first model request imports no npm or node: module", async () => {
  const outside: string[] = [];
  for (const root of ["main.ts", "src/cli/run.ts", "src/cli/run_options.ts"]) {
    const { stdout, code } = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", root],
      cwd: new URL("..", import.meta.url),
      stdout: "piped",
      stderr: "null",
    }).output();
    assert.equal(code, 0);
    const graph = JSON.parse(new TextDecoder().decode(stdout)) as {
      roots: string[];
      modules: {
        specifier: string;
        dependencies?: { isDynamic?: boolean; code?: { specifier: string } }[];
      }[];
    };
    const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
    const seen = new Set<string>();
    const pending = [...graph.roots];
    while (pending.length) {
      const specifier = pending.pop()!;
      if (seen.has(specifier)) continue;
      seen.add(specifier);
      for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
        const target = dep.code?.specifier;
        if (!target || dep.isDynamic) continue;
        if (target.startsWith("file:")) pending.push(target);
        else outside.push(`${specifier.slice(ROOT.length)} → ${target}`);
      }
    }
  }
  assert.deepEqual(outside, []);
});
