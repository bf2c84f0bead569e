/**
 * The files `deno task compile` leaves out of the binary (scripts/embed_excludes.ts) are files no
 * running program reads. The binary itself cannot run here (no denort), so the proof runs replio's
 * npm code from source over a copy of Deno's npm cache with exactly those files deleted:
 * tests/support/npm_exercise.ts imports every npm module the product's graph names and runs each
 * package once along the path replio takes (HTML and PDF pages, shell parsing, globs, diffs, YAML,
 * schemas, type stripping, an MCP client and server). The control deletes one file a package does
 * run and shows the same program then fails: the copy, not the full cache, is what it read.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { nonRuntimePaths, reachedPackageDirs } from "../scripts/embed_excludes.ts";
import { runtimeGraph } from "./support/runtime_graph.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CONFIG = join(ROOT, "deno.json");
const EXERCISE = join(ROOT, "tests/support/npm_exercise.ts");
const ENTRIES = ["main.ts", "plugins/core-fs/_grep_worker.ts"];

async function denoJson(args: string[]): Promise<Record<string, unknown>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Runs the exercise with `denoDir` as Deno's cache, offline. */
async function exercise(denoDir: string, specifiers: string[]): Promise<Deno.CommandOutput> {
  return await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--no-check",
      "--no-prompt",
      "-A",
      "--config",
      CONFIG,
      "--frozen-lockfile",
      EXERCISE,
      ...specifiers,
    ],
    cwd: ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: join(denoDir, "home"),
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      RUST_BACKTRACE: "0",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

Deno.test("the npm files deno task compile leaves out are read by none of replio's npm paths", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replio_pruned_npm_" });
  try {
    const { npmCache } = await denoJson(["info", "--json"]) as { npmCache: string };
    const specifiers = (await runtimeGraph(ROOT, "main.ts")).filter((s) => s.startsWith("npm:"));
    assert.ok(specifiers.length > 10, `npm modules in the graph: ${specifiers.join(", ")}`);

    // A linked copy: as fast as a listing, and deleting a link leaves the real cache whole.
    const copied = await new Deno.Command("cp", { args: ["-al", npmCache, join(dir, "npm")] })
      .output();
    assert.ok(copied.success, new TextDecoder().decode(copied.stderr));
    await Deno.mkdir(join(dir, "home"));
    const packages = await reachedPackageDirs(ROOT, ENTRIES);
    const leftOut = (await Promise.all(packages.map(nonRuntimePaths))).flat();
    assert.ok(leftOut.length > 100, `left out: ${leftOut.length} paths`);
    for (const path of leftOut) {
      assert.ok(path.startsWith(`${npmCache}/`), `${path} is outside ${npmCache}`);
      await Deno.remove(join(dir, "npm", path.slice(npmCache.length)), { recursive: true });
    }

    const pruned = await exercise(dir, specifiers);
    const said = new TextDecoder().decode(pruned.stdout);
    assert.equal(pruned.code, 0, said + new TextDecoder().decode(pruned.stderr));
    assert.match(said, /^ok mcp client and server/m);

    // Control: without a file that picomatch runs, the same program fails on it.
    const picomatch = packages.find((path) => /\/picomatch\/[^/]+$/.test(path));
    assert.ok(picomatch, "picomatch is no longer reached: pick another package");
    await Deno.remove(join(dir, "npm", picomatch.slice(npmCache.length), "index.js"));
    const broken = await exercise(dir, specifiers);
    assert.notEqual(broken.code, 0, new TextDecoder().decode(broken.stdout));
    assert.match(new TextDecoder().decode(broken.stderr), /picomatch/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
