/**
 * `replio --help` prints stored text (src/cli/root_help.ts) so it needn't load commander: the
 * text must be what commander prints for the current program, and the CLI must print it.
 */
import assert from "node:assert/strict";
import { ROOT_HELP } from "../src/cli/root_help.ts";
import { renderRootHelp } from "../src/cli/root_help_docs.ts";
import { runReplio } from "./support/replio_process.ts";

Deno.test("the stored root help is what commander prints for the current program", () => {
  assert.ok(
    ROOT_HELP === renderRootHelp(),
    "src/cli/root_help.ts is stale: run `deno task docs` and commit the result",
  );
});

Deno.test("replio --help and -h print the root help and exit 0", async () => {
  const cwd = await Deno.makeTempDir();
  try {
    for (const flag of ["--help", "-h"]) {
      const { code, stdout } = await runReplio([flag], { cwd });
      assert.equal(code, 0);
      assert.equal(stdout, ROOT_HELP);
      assert.match(stdout, /^Usage: replio \[options\] \[command\]/);
      assert.match(stdout, /Exit codes:/);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
