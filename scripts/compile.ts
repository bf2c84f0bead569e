/**
 * `deno task compile`: builds `dist/replio` with `deno compile`. Bundled plugins load through
 * static imports; the one module loaded at run time by URL, grep's search worker, is named with
 * `--include`. The binary carries only what it runs: `--exclude-unused-npm` leaves out the npm
 * packages the module graph never reaches (deno.lock also pins the test-only ones), and
 * `--exclude` the files of the reached ones that no program reads (scripts/embed_excludes.ts).
 * `deno compile` downloads Deno's runtime (`denort`) from dl.deno.land; where that host is
 * unreachable this says so in one line and names `DENORT_BIN`, which points Deno at a runtime
 * binary already on disk.
 * @module
 */
import { fileURLToPath } from "node:url";
import { nonRuntimePaths, reachedPackageDirs } from "./embed_excludes.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ENTRY = "main.ts";
/** Modules loaded by URL at run time (Workers), which compile only embeds when named. */
const RUNTIME_MODULES = ["plugins/core-fs/_grep_worker.ts"];

/** The output path: `deno task compile [PATH]`, default dist/replio. */
const output = Deno.args[0] ?? "dist/replio";
const encoder = new TextEncoder();
let excluded: string[];
try {
  const packages = await reachedPackageDirs(ROOT, [ENTRY, ...RUNTIME_MODULES]);
  excluded = (await Promise.all(packages.map(nonRuntimePaths))).flat();
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  Deno.stderr.writeSync(encoder.encode(`compile: ${message}\n`));
  Deno.exit(1);
}
const args = [
  "compile",
  "--no-prompt",
  "-A",
  "--exclude-unused-npm",
  // The REPL collects garbage at its prompt when gc() exists (src/repl/idle_gc.ts).
  "--v8-flags=--expose-gc",
  ...RUNTIME_MODULES.flatMap((module) => ["--include", module]),
  ...excluded.map((path) => `--exclude=${path}`),
  "--output",
  output,
  ENTRY,
];
const { code, stderr } = await new Deno.Command(Deno.execPath(), {
  args,
  cwd: ROOT,
  env: { RUST_BACKTRACE: "0" },
  stdout: "inherit",
  stderr: "piped",
}).output();
const text = new TextDecoder().decode(stderr);
if (
  code !== 0 && /denort/.test(text) &&
  /error sending request|dns error|Connect|timed out/i.test(text)
) {
  Deno.stderr.writeSync(encoder.encode(
    "compile: cannot download Deno's runtime (denort) from dl.deno.land: this machine cannot " +
      `reach it: set DENORT_BIN to a denort ${Deno.version.deno} binary for this platform ` +
      "(copied from a machine that can reach dl.deno.land) and run deno task compile again\n",
  ));
  Deno.exit(1);
}
await Deno.stderr.write(stderr);
Deno.exit(code);
