/**
 * `deno task compile` (scripts/compile.ts): where Deno's runtime (`denort`) cannot be
 * downloaded, the task fails in one line that says so and names DENORT_BIN, not with Deno's raw
 * connection error. The download is made to fail for sure through an unreachable proxy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";

const CONFIG = new URL("../deno.json", import.meta.url).pathname;

Deno.test("deno task compile explains an unreachable denort download in one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replio_compile_" });
  try {
    const output = join(dir, "replio");
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--config", CONFIG, "compile", output],
      env: {
        HTTPS_PROXY: "http://127.0.0.1:1",
        HTTP_PROXY: "http://127.0.0.1:1",
        NO_COLOR: "1",
        DENO_NO_UPDATE_CHECK: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    if (out.code === 0) {
      // denort was already cached on this machine: then the binary must work.
      const version = await new Deno.Command(output, { args: ["--version"] }).output();
      assert.equal(version.code, 0);
      return;
    }
    assert.equal(out.code, 1, stderr);
    // deno task's own header ("Task compile …") aside, the task says one line.
    const lines = stderr.trimEnd().split("\n").filter((line) => !line.startsWith("Task "));
    assert.equal(lines.length, 1, stderr);
    assert.match(
      lines[0]!,
      /^compile: cannot download Deno's runtime \(denort\) from dl\.deno\.land: .*set DENORT_BIN to/,
    );
    assert.doesNotMatch(stderr, /Caused by|error sending request|backtrace/i);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
