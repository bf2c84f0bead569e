/**
 * What `deno compile` relies on, proven where its runtime cannot be downloaded: the whole
 * program bundles into one file (bundled plugins are static imports, nothing reads the source
 * tree at run time) and that file runs tools through the policy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { MAIN } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

async function run(args: string[], cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0", XDG_CONFIG_HOME: join(cwd, ".xdg") },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}

Deno.test("deno bundle of main.ts runs tools through the policy without the source tree", async () => {
  await using wt = await tempWorktree({ "notes.txt": "one\ntwo\n" });
  const bundle = join(wt.path, ".build", "replio.js");
  const built = await run(
    ["bundle", "--quiet", "--output", bundle, MAIN],
    new URL("..", import.meta.url).pathname,
  );
  assert.equal(built.code, 0, built.stderr);
  const version = await run(["run", "--no-prompt", "-A", bundle, "--version"], wt.path);
  assert.match(version.stdout, /^replio \d+\.\d+\.\d+\n$/);
  const read = await run([
    "run",
    "--no-prompt",
    "-A",
    bundle,
    "tool",
    "file_read",
    '{"path":"notes.txt"}',
  ], wt.path);
  assert.equal(read.code, 0, read.stderr);
  assert.match(read.stdout, /^# notes\.txt - 2 lines/);
  const denied = await run(
    [
      "run",
      "--no-prompt",
      "-A",
      bundle,
      "tool",
      "run_command",
      '{"command":"true"}',
      "--mode",
      "plan",
    ],
    wt.path,
  );
  assert.equal(denied.code, 3);
});
