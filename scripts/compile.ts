/**
 * `deno task compile`: builds `dist/replio` with `deno compile`. Bundled plugins load through
 * static imports; the one module loaded at run time by URL, grep's search worker, is named with
 * `--include`. `deno compile` downloads Deno's runtime (`denort`) from dl.deno.land; where that
 * host is unreachable this says so in one line and names `DENORT_BIN`, which points Deno at a
 * runtime binary already on disk.
 * @module
 */
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Modules loaded by URL at run time (Workers), which compile only embeds when named. */
const RUNTIME_MODULES = ["plugins/core-fs/_grep_worker.ts"];

/** The output path: `deno task compile [PATH]`, default dist/replio. */
const output = Deno.args[0] ?? "dist/replio";
const args = [
  "compile",
  "--no-prompt",
  "-A",
  ...RUNTIME_MODULES.flatMap((module) => ["--include", module]),
  "--output",
  output,
  "main.ts",
];
const encoder = new TextEncoder();
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
