/**
 * What a program loads at run time, read from `deno info --json`: its module graph followed along
 * code imports only (an `import type` or a `@ts-types` target loads nothing, and some of those
 * would not even resolve at run time). Shared by the compiled-binary tests.
 * @module
 */
import assert from "node:assert/strict";

/** The parts of `deno info --json FILE` read here. */
interface GraphInfo {
  roots: string[];
  modules: { specifier: string; dependencies?: { code?: { specifier: string } }[] }[];
}

/** The specifiers (`file:` and `npm:`) that `entry` loads, resolved with deno.json at `root`. */
export async function runtimeGraph(root: string, entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: root,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, `deno info ${entry} failed: ${new TextDecoder().decode(out.stderr)}`);
  const info: GraphInfo = JSON.parse(new TextDecoder().decode(out.stdout));
  const bySpecifier = new Map(info.modules.map((module) => [module.specifier, module]));
  const reached = new Set<string>();
  const pending = [...info.roots];
  for (let specifier = pending.pop(); specifier !== undefined; specifier = pending.pop()) {
    if (reached.has(specifier)) continue;
    reached.add(specifier);
    for (const dependency of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dependency.code) pending.push(dependency.code.specifier);
    }
  }
  return [...reached].sort();
}
