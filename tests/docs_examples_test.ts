/**
 * The command examples in README.md and docs/*.md run for real: each `$ replio …` line of a
 * fenced block runs in a fresh worktree, and its output must have the shape the docs show
 * (tests/support/doc_examples.ts). REPL transcripts (`$ replio` alone) are the tmux tests' job.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Command } from "commander";
import {
  type DocExample,
  extractCommands,
  extractExamples,
  matchShape,
} from "./support/doc_examples.ts";
import { replioCommand } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";
import { WORKED_PAGES } from "./docs_worked_examples_test.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The worktree the docs' examples show; the real one is put in its place. */
const DOCS_WORKTREE = "/home/me/project";

const files = [
  "README.md",
  ...[...Deno.readDirSync(join(ROOT, "docs"))]
    .filter((e) => e.name.endsWith(".md")).map((e) => `docs/${e.name}`).sort(),
];

for (const file of files) {
  // These pages' examples need a situation (a session, a model): docs_worked_examples_test.ts.
  if (WORKED_PAGES.includes(file)) continue;
  const examples = extractExamples(Deno.readTextFileSync(join(ROOT, file)), file);
  if (examples.length === 0) continue;
  Deno.test(`${file} command examples give the output they show`, async () => {
    await using wt = await tempWorktree({ "README.md": "# Demo\n" });
    let lastCode = 0;
    for (const example of examples) {
      const output = example.command === "echo $?"
        ? `${lastCode}\n`
        : await runExample(example, wt.path).then(({ code, text }) => {
          lastCode = code;
          return text;
        });
      const mismatch = matchShape(
        example.expected,
        output.replaceAll(wt.path, DOCS_WORKTREE).split("\n"),
      );
      assert.equal(mismatch, null, `${example.where}: $ ${example.command}\n${output}`);
    }
  });
}

/** Runs one example through bash, `replio` being this checkout; stdout and stderr together. */
async function runExample(example: DocExample, cwd: string) {
  // bash splits and unquotes the command as a reader's shell would.
  const split = await new Deno.Command("bash", {
    args: ["-c", `set -- ${example.command}; printf '%s\\0' "$@"`],
    stdout: "piped",
  }).output();
  const [program, ...args] = new TextDecoder().decode(split.stdout).split("\0").slice(0, -1);
  assert.equal(program, "replio", `${example.where}: examples run replio, not "${program}"`);
  const { code, stdout, stderr } = await replioCommand(args, { cwd }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, text: decode(stdout) + decode(stderr) };
}

Deno.test("docs/tools.md shows glob examples of parameter descriptions as written", async () => {
  const docs = await Deno.readTextFile(join(ROOT, "docs/tools.md"));
  // deno fmt read `"*.ts" or "src/**/*.py"` as emphasis and wrote `"_.ts" or "src/**/_.py"`.
  assert.ok(docs.includes("Only search files matching this glob, e.g. `*.ts` or `src/**/*.py`"));
  assert.ok(!docs.includes('"_.ts"'));
});

Deno.test("every replio command in the docs' shell blocks parses with the real command line", async () => {
  const problems: string[] = [];
  for (const file of files) {
    const markdown = await Deno.readTextFile(join(ROOT, file));
    for (const { where, command } of extractCommands(markdown, file)) {
      const problem = await parseProblem(command);
      if (problem) problems.push(`${where}: ${command}: ${problem}`);
    }
  }
  assert.deepEqual(problems, []);
});

Deno.test("parseProblem catches what a doc example could get wrong", async () => {
  assert.equal(await parseProblem('replio run --output json "hi"'), null);
  assert.match((await parseProblem("replio run --output xml hi"))!, /Allowed choices/);
  assert.match((await parseProblem("replio tools --bogus"))!, /unknown option/);
  assert.match((await parseProblem("replio sesions list"))!, /sesions/);
});

/** Why the command line would not parse, or null when it does; nothing runs. */
async function parseProblem(command: string): Promise<string | null> {
  const { buildProgram } = await import("../src/cli/program.ts");
  const program = buildProgram(() => {});
  // Every action is replaced, so nothing runs; commander's own exits come back as throws.
  for (const cmd of [program, ...allCommands(program)]) {
    cmd.action(() => {}).configureOutput({ writeErr: () => {}, writeOut: () => {} });
  }
  try {
    await program.parseAsync(await shellWords(command.replace(/^replio\s*/, "")), {
      from: "user",
    });
    return null;
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    return /^commander\.(help|helpDisplayed|version)$/.test(code) ? null : (error as Error).message;
  }
}

/** Every subcommand below `command`, depth first. */
function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** Splits `text` into words as bash would (quotes removed; `$VAR` left as written). */
async function shellWords(text: string): Promise<string[]> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `set -f; set -- ${text.replaceAll("$", "\\$")}; printf '%s\\0' "$@"`],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\0").slice(0, -1);
}
