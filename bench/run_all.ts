/**
 * `deno task bench`: runs every benchmark (each writes bench/results/<name>.md) and assembles
 * docs/performance.md from the results. `--assemble` only rebuilds the page.
 * @module
 */
const BENCHES = [
  "startup",
  "first_request",
  "loop",
  "session",
  "fs",
  "repl",
  "policy",
  "policy_test",
  "isolation",
  "output",
];
/**
 * Sections that run apart (`deno task bench:peers` needs root and a network namespace) or are
 * written by hand from other runs (`floor`: issue 18's before and after; `soak_crash`: from
 * `deno task soak` and `deno task crash`, which take minutes; `scale_*`: issue 26's scaling
 * benches, `deno task bench:scale`, and `scale_session_notes`, their before and after, by hand).
 */
const SEPARATE = [
  "peers",
  "floor",
  "soak_crash",
  "scale_binary",
  "scale_repo",
  "scale_output",
  "scale_session_length",
  "scale_session_file",
  "scale_session_notes",
];
const here = new URL(".", import.meta.url);

if (!Deno.args.includes("--assemble")) {
  for (const name of BENCHES) {
    const file = new URL(`${name}_bench.ts`, here);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "-A", file.pathname],
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) Deno.exit(code);
  }
}

const sections: string[] = [];
for (const name of [...BENCHES, ...SEPARATE]) {
  try {
    const text = await Deno.readTextFile(new URL(`results/${name}.md`, here));
    sections.push(text.trim().replace(/^# /, "## ").replace(/\n## /g, "\n### "));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
const page = `# Performance

Measured on the project's machines (2 cores, shared while other work runs: figures move by tens
of percent between runs). Every benchmark compares against a reference run in the same process
or the same run (Deno's hello world, ripgrep, a bare loop), so the ratio is the figure to trust.
Regenerate with \`deno task bench\` (all) or the command under each section, then
\`deno run -A bench/run_all.ts --assemble\`.

${sections.join("\n\n")}
`;
await Deno.writeTextFile(new URL("../docs/performance.md", here), page);
// The page is checked by `deno fmt --check` like every other doc.
await new Deno.Command(Deno.execPath(), {
  args: ["fmt", new URL("../docs/performance.md", here).pathname],
  stdout: "null",
  stderr: "inherit",
}).output();
