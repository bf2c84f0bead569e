/**
 * Issue 26, item 5: what the compiled binary carries. Runs `deno compile`'s whole embed step
 * (module graph, type check, `--include`, npm snapshot) three ways, with the `deno` binary
 * standing in for Deno's runtime (`DENORT_BIN`: a real denort cannot be downloaded here, and the
 * stand-in's output cannot run), and reads the embedded files deno lists:
 *
 * - plain `deno compile` with the grep worker included (the task before issue 26): every npm
 *   package deno.lock pins, test-only ones too;
 * - the same with `--exclude-unused-npm`: only the packages the module graph reaches;
 * - `deno task compile`: also without the files of those packages that no program reads.
 *
 *     deno run -A bench/scale_binary.ts
 *
 * Writes bench/results/scale_binary.md. The target (≤ 25 MB, every bundled plugin embedded) is
 * checked on every CI run by tests/compile_embed_test.ts.
 * @module
 */
import { join } from "node:path";
import {
  type EmbeddedTree,
  NPM_ROOT,
  npmPackageSizes,
  readEmbeddedTree,
} from "../scripts/embedded_tree.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const GREP_WORKER = "plugins/core-fs/_grep_worker.ts";
const TARGET_MB = 25;
/** How many of the largest npm packages the page lists. */
const LARGEST = 12;

/** Runs `args` (a deno command) from the checkout with the stand-in runtime; returns the tree. */
async function embed(args: string[]): Promise<EmbeddedTree> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: {
      DENORT_BIN: Deno.execPath(),
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
      RUST_BACKTRACE: "0",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`deno ${args.join(" ")} failed:\n${text}`);
  return readEmbeddedTree(text);
}

const dir = await Deno.makeTempDir({ prefix: "replio_scale_binary_" });
try {
  const plain = ["compile", "--no-prompt", "-A", "--include", GREP_WORKER, "--output"];
  const builds: [string, EmbeddedTree][] = [
    [
      "plain `deno compile` (the task before issue 26)",
      await embed([...plain, join(dir, "a"), "main.ts"]),
    ],
    [
      "+ `--exclude-unused-npm`",
      await embed([
        ...plain.slice(0, 3),
        "--exclude-unused-npm",
        ...plain.slice(3),
        join(dir, "b"),
        "main.ts",
      ]),
    ],
    [
      "`deno task compile` (+ files no program reads left out)",
      await embed(["task", "compile", join(dir, "c")]),
    ],
  ];
  const mb = (value: number) => value.toFixed(1);
  const sumMb = (tree: EmbeddedTree, prefixes: string[]) =>
    tree.entries.filter((e) => prefixes.some((prefix) => e.path.startsWith(prefix)))
      .reduce((sum, e) => sum + e.mb, 0);
  const rows = builds.map(([name, tree]) =>
    `| ${name} | ${mb(tree.totalMb)} | ${npmPackageSizes(tree).length} | ` +
    `${mb(sumMb(tree, [`${NPM_ROOT}/`]))} | ${mb(sumMb(tree, ["main.ts", "src/", "plugins/"]))} |`
  );
  const final = builds.at(-1)![1];
  const largest = npmPackageSizes(final).slice(0, LARGEST)
    .map(([name, size]) => `| ${name} | ${size.toFixed(2)} |`);
  const runtimeMb = (await Deno.stat(Deno.execPath())).size / 1024 ** 2;
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(", ");
  const page = `# Compiled binary size

Command: \`deno run -A bench/scale_binary.ts\` (Deno ${Deno.version.deno}, ${Deno.build.os}/${Deno.build.arch}, load average ${load}, ${
    new Date().toISOString().slice(0, 10)
  }). \`deno compile\`'s embed step (module graph, type check, \`--include\`, npm snapshot) run with
the \`deno\` binary standing in for Deno's runtime (\`DENORT_BIN\`): a real \`denort\` cannot be
downloaded here and the stand-in's output cannot run, but the files it embeds are the files a
real binary embeds. Sizes are deno's own figures for the embedded files (MB = 1024² bytes); the
runtime comes on top (\`denort\`, smaller than the ${mb(runtimeMb)} MB \`deno\` binary here).

| build | embedded MB | npm packages | of which npm MB | of which replio MB |
| --- | --- | --- | --- | --- |
${rows.join("\n")}

Target: embedded files ≤ ${TARGET_MB} MB with every bundled plugin in them: ${
    final.totalMb <= TARGET_MB ? "met" : "missed"
  } (${
    mb(final.totalMb)
  } MB). \`tests/compile_embed_test.ts\` runs \`deno task compile\` the same way in
CI and checks that every module of the bundled plugins and of grep's worker is embedded, no
test-only package is, and the total stays within the target. The parts are deno's per-folder
figures (replio: main.ts, src, plugins); they add up to a little less than the total deno prints.

The largest npm packages left (MB), each reached from \`main.ts\` (\`${NPM_ROOT}\` in the binary):

| package | MB |
| --- | --- |
${largest.join("\n")}
`;
  await Deno.writeTextFile(new URL("results/scale_binary.md", import.meta.url), page);
  Deno.stdout.writeSync(new TextEncoder().encode(page));
} finally {
  await Deno.remove(dir, { recursive: true });
}
