/**
 * What the compiled binary carries (issue #26): `deno task compile` runs its whole embed step
 * (module graph, type check, `--include`, npm snapshot) with the `deno` binary standing in for
 * Deno's runtime (`DENORT_BIN`; a real denort cannot be downloaded here, and the stand-in's
 * output cannot run). The test reads the tree of embedded files deno prints: every module of the
 * bundled plugins and of grep's search worker is in it, no test-only npm package is, and the
 * files add up to at most 25 MB. It prints the embedded size for docs/performance.md.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { isEmbedded, NPM_ROOT, readEmbeddedTree } from "../scripts/embedded_tree.ts";
import { runtimeGraph } from "./support/runtime_graph.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CONFIG = join(ROOT, "deno.json");
/** Started by URL at run time, so the binary has it only when compile names it. */
const GREP_WORKER = "plugins/core-fs/_grep_worker.ts";
/** Pinned in deno.json for the tests alone: the binary must not carry them. */
const TEST_ONLY_PACKAGES = [
  "openai",
  "@modelcontextprotocol/server-everything",
  "@modelcontextprotocol/server-filesystem",
];
/** Issue #26's target for the embedded files. */
const MAX_EMBEDDED_MB = 25;
/** The local files (modules and text imports) that `entry` loads, relative to ROOT. */
async function runtimeModules(entry: string): Promise<string[]> {
  const prefix = `file://${ROOT}`;
  return (await runtimeGraph(ROOT, entry)).flatMap((specifier) =>
    specifier.startsWith(prefix) ? [specifier.slice(prefix.length)] : []
  );
}

Deno.test("deno task compile embeds every bundled plugin and the grep worker, no test-only package, within 25 MB", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replio_embed_" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--config", CONFIG, "compile", join(dir, "replio")],
      env: {
        DENORT_BIN: Deno.execPath(),
        NO_COLOR: "1",
        DENO_NO_UPDATE_CHECK: "1",
        RUST_BACKTRACE: "0",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const output = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, output);
    const embedded = readEmbeddedTree(output);

    const plugins = [...Deno.readDirSync(join(ROOT, "plugins"))]
      .filter((entry) => entry.isDirectory).map((entry) => `plugins/${entry.name}/mod.ts`);
    assert.ok(plugins.length >= 6, `bundled plugins found: ${plugins.join(", ")}`);
    const pluginModules = (await runtimeModules("main.ts")).filter((p) => p.startsWith("plugins/"));
    const workerModules = await runtimeModules(GREP_WORKER);
    const expected = [...new Set([...plugins, ...pluginModules, ...workerModules])].sort();
    assert.ok(expected.includes(GREP_WORKER));
    assert.deepEqual(expected.filter((path) => !isEmbedded(embedded, path)), []);

    // Each is pinned in deno.json and deno.lock, so its absence is compile's filter at work.
    const lock = await Deno.readTextFile(join(ROOT, "deno.lock"));
    const npmEmbedded = embedded.entries.map((entry) => entry.path)
      .filter((path) => path.startsWith(`${NPM_ROOT}/`));
    for (const name of TEST_ONLY_PACKAGES) {
      assert.match(lock, new RegExp(`"npm:${name}@`), `${name} is no longer pinned`);
      assert.deepEqual(npmEmbedded.filter((path) => path.startsWith(`${NPM_ROOT}/${name}/`)), []);
    }
    // Reached packages are embedded (the tree was read, not an empty one).
    assert.ok(npmEmbedded.some((path) => path.startsWith(`${NPM_ROOT}/@modelcontextprotocol/sdk`)));

    Deno.stdout.writeSync(new TextEncoder().encode(
      `compiled binary: embedded files ${embedded.totalMb.toFixed(2)} MB ` +
        `(target ${MAX_EMBEDDED_MB} MB), ${expected.length} plugin and worker modules\n`,
    ));
    assert.ok(
      embedded.totalMb <= MAX_EMBEDDED_MB,
      `embedded files ${embedded.totalMb} MB exceed ${MAX_EMBEDDED_MB} MB`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
