/**
 * The README's sandboxed `deno run` examples work as printed: each line is read out of README.md
 * (not copied here) and run literally from the checkout, which has a project config
 * (`.replio/config.yaml`), as a new user would start.
 */
import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname;

/** Every `deno run …` command in the README's shell blocks, comments stripped. */
async function readmeCommands(): Promise<string[]> {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks.flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.startsWith("deno run "));
}

Deno.test("the README's deno run examples exist and run from the checkout", async () => {
  const commands = await readmeCommands();
  assert.ok(commands.length >= 2, `README deno run examples: ${commands.join(" | ")}`);
  // The checkout's own project config is part of the scenario (it once broke these runs).
  await Deno.stat(new URL("../.replio/config.yaml", import.meta.url));
  for (const command of commands) {
    const [program, ...args] = command.split(/\s+/);
    assert.equal(program, "deno");
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: ROOT,
      env: { NO_COLOR: "1", RUST_BACKTRACE: "0", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, `${command}\n${stdout}${stderr}`);
    // A fresh clone is an untrusted folder: its own .replio/config.yaml is left out, said once.
    assert.match(
      stderr,
      /^(replio: untrusted folder [^\n]*run "replio trust" to load them\n)?$/,
      command,
    );
    assert.match(stdout, /file_read/, command);
    // What cannot work under these flags is named with its flag, not offered.
    assert.match(stdout, /run_command\s+unavailable: needs --allow-run=setsid,bash/, command);
  }
});
