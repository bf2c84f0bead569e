/**
 * The test task: runs `deno test` over the repository and ends with the plain line
 * `N passed, M failed, K skipped` that CI reads (DESIGN.md §1). Extra arguments are passed on
 * (e.g. a file or `--filter`).
 * @module
 */
/** Markdown under docs/ shows fragments, not programs: doc tests cover the code folders. */
const extra = Deno.args.length ? Deno.args : ["src", "plugins", "tests", "main.ts"];
const child = new Deno.Command(Deno.execPath(), {
  args: ["test", "--no-prompt", "-A", "--doc", "--parallel", ...extra],
  env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
  stdout: "piped",
  stderr: "inherit",
}).spawn();

const decoder = new TextDecoder();
let tail = "";
for await (const chunk of child.stdout) {
  await Deno.stdout.write(chunk);
  tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
}
const { code } = await child.status;
const summary = tail.match(
  /(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed(?: \(\d+ steps?\))?(?: \| (\d+) ignored)?/,
);
const passed = summary ? Number(summary[1]) : 0;
const failed = summary ? Number(summary[2]) : code === 0 ? 0 : 1;
const skipped = summary?.[3] ? Number(summary[3]) : 0;
await Deno.stdout.write(
  new TextEncoder().encode(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`),
);
Deno.exit(code);
