/**
 * `deno test --parallel` runs every test file in one process, so the environment and the working
 * directory are shared by all of them. A test that sets a variable changes it for the files
 * running alongside: plugin_worker_test once pointed XDG_CACHE_HOME into its worktree for the
 * length of a test, and url_plugin_test, starting replio at that moment, gave it an empty Deno
 * cache in which it downloaded every npm package (95 s under load, or a certificate error).
 * Tests give a child its own environment, and narrow an in-process test with `permissions`.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { withDeadline } from "./support/deadline.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Calls that change the process for every test file running alongside. */
const SHARED_STATE_WRITES =
  /\bDeno\.env\.(?:set|delete)\(|\bDeno\.chdir\(|\bprocess\.env\.\w+\s*=[^=]|\bprocess\.chdir\(/;

/** Every file below `dir`, skipping dot folders (caches, .git). */
async function* filesBelow(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && !entry.name.startsWith(".")) yield* filesBelow(path);
    else if (entry.isFile) yield path;
  }
}

/** Each line of `text` that changes shared process state, as `file:line: text`. */
function sharedStateWrites(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) =>
    SHARED_STATE_WRITES.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []
  );
}

Deno.test("no test file or test helper changes the environment or working directory of the test process", async () => {
  const found: string[] = [];
  for (const dir of ["tests", "src", "plugins"]) {
    for await (const file of filesBelow(join(ROOT, dir))) {
      const isTestCode = /_test\.ts$/.test(file) || file.includes("/tests/support/");
      if (!isTestCode || file.endsWith("/shared_process_test.ts")) continue;
      found.push(...sharedStateWrites(relative(ROOT, file), await Deno.readTextFile(file)));
    }
  }
  assert.deepEqual(
    found,
    [],
    "give the child process its own env, or narrow the test's permissions",
  );
});

Deno.test("sharedStateWrites finds each kind of change, and not a read", () => {
  const text = [
    'Deno.env.set("XDG_CACHE_HOME", dir);',
    'const home = Deno.env.get("HOME");',
    'Deno.env.delete("OPENAI_API_KEY");',
    "Deno.chdir(wt.path);",
    'process.env.FOO = "1";',
    'if (process.env.FOO === "1") {}',
  ].join("\n");
  assert.deepEqual(sharedStateWrites("x_test.ts", text), [
    'x_test.ts:1: Deno.env.set("XDG_CACHE_HOME", dir);',
    'x_test.ts:3: Deno.env.delete("OPENAI_API_KEY");',
    "x_test.ts:4: Deno.chdir(wt.path);",
    'x_test.ts:5: process.env.FOO = "1";',
  ]);
});

Deno.test("test files run in parallel share one environment: a variable one sets, another sees", async () => {
  // The control for the check above: without it, this is what a test's Deno.env.set does.
  const dir = await Deno.makeTempDir({ prefix: "replio_shared_env_" });
  try {
    const released = join(dir, "released");
    await Deno.writeTextFile(
      join(dir, "a_test.ts"),
      `Deno.test("a", async () => {
  Deno.env.set("REPLIO_SHARED_PROBE", "set by a");
  // Holds the variable until b has looked.
  while (!(await Deno.stat(${JSON.stringify(released)}).then(() => true, () => false))) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});\n`,
    );
    await Deno.writeTextFile(
      join(dir, "b_test.ts"),
      `Deno.test("b", async () => {
  while (Deno.env.get("REPLIO_SHARED_PROBE") === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  console.log("b saw: " + Deno.env.get("REPLIO_SHARED_PROBE"));
  await Deno.writeTextFile(${JSON.stringify(released)}, "");
});\n`,
    );
    const { code, stdout, stderr } = await withDeadline(
      new Deno.Command(Deno.execPath(), {
        args: ["test", "-A", "--no-check", "--parallel", "a_test.ts", "b_test.ts"],
        cwd: dir,
        env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_JOBS: "2" },
      }).output(),
      "two test files run in parallel to see each other's variable",
    );
    const out = new TextDecoder().decode(stdout);
    assert.equal(code, 0, out + new TextDecoder().decode(stderr));
    assert.match(out, /b saw: set by a/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
