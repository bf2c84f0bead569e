/**
 * The worked examples of docs/policy.md, docs/approvals.md and docs/replay.md run for real, in
 * the situation each describes: a recorded session and a proposed config, a model that asks
 * for a command, the repository's own tour. Every `$ …` line of their shell blocks runs in
 * order; its output (stdout and stderr as a terminal shows them) must have the shape the page
 * shows. Ids the page makes up (`ses_…`, `call_…`) stand for the ones the run prints.
 * tests/docs_examples_test.ts covers every other page, in a bare worktree.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type DocExample, extractExamples, matchShape } from "./support/doc_examples.ts";
import { startMockModel } from "./support/mock_model.ts";
import { childEnv, MAIN, runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const ROOT = new URL("../", import.meta.url).pathname;
/** The worktree the pages show; the real one is put in its place. */
const DOCS_WORKTREE = "/home/me/project";
/** Ids a page makes up, matched to the ones a run prints, in order of appearance. */
const ID_PATTERNS = [/ses_\d{8}_\d{6}_[a-z0-9]{6}/g, /\bcall_[A-Za-z0-9_]+/g];

/** The pages whose examples need a situation; docs_examples_test.ts leaves them to this file. */
export const WORKED_PAGES = ["docs/policy.md", "docs/approvals.md", "docs/replay.md"];

interface Situation {
  cwd: string;
  env: Record<string, string>;
}

Deno.test("docs/policy.md: policy test and policy explain give the output the page shows", async () => {
  await using wt = await tempWorktree({ "README.md": "# Demo\n" });
  // The recorded session the page talks about: a read, and a command a --yes run was asked for.
  await using mock = startMockModel([
    {
      toolCalls: [
        { name: "file_read", arguments: { path: "README.md" } },
        { name: "run_command", arguments: { command: "echo publish" } },
      ],
    },
    { text: "done" },
  ]);
  const recorded = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "m", "--yes", "go"],
    { cwd: wt.path },
  );
  assert.equal(recorded.code, 0, recorded.stderr);
  await runPage("docs/policy.md", { cwd: wt.path, env: privateEnv(wt.path) });
});

Deno.test("docs/approvals.md: park, approve and resume give the output the page shows", async () => {
  await using wt = await tempWorktree({
    "src/greet.ts":
      '// TODO: greet people by name\nexport function greet(): string {\n  return "Hello, world";\n}\n',
  });
  await using mock = startMockModel([
    { toolCalls: [{ name: "run_command", arguments: { command: "wc -l src/greet.ts" } }] },
    { text: "src/greet.ts has 4 lines." },
  ]);
  // The page's runs name no model server: it comes from the environment, as a user's would.
  await runPage("docs/approvals.md", {
    cwd: wt.path,
    env: { ...privateEnv(wt.path), OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: "sk-docs" },
  });
  assert.deepEqual(mock.violations, []);
});

Deno.test("docs/replay.md: the tour replays as the page shows", async () => {
  await runPage("docs/replay.md", { cwd: ROOT, env: privateEnv(await Deno.makeTempDir()) });
});

function privateEnv(dir: string): Record<string, string> {
  return { XDG_CONFIG_HOME: join(dir, ".xdg") };
}

/** Runs every example of `page` in order in `situation`, checking each output's shape. */
async function runPage(page: string, situation: Situation): Promise<void> {
  const examples = extractExamples(await Deno.readTextFile(join(ROOT, page)), page);
  assert.ok(examples.length > 0, `${page} has no $ examples`);
  const ids = new Map<string, string>();
  let lastCode = 0;
  for (const example of examples) {
    const command = substitute(example.command, ids);
    let output: string;
    if (command === "echo $?") {
      output = `${lastCode}\n`;
    } else if (/^cat \S+$/.test(command)) {
      // The file the page shows is the situation: write it as shown, then show it.
      const file = join(situation.cwd, command.slice(4));
      await Deno.writeTextFile(file, example.expected.join("\n").trimEnd() + "\n");
      output = await Deno.readTextFile(file);
    } else {
      ({ code: lastCode, output } = await runCommand(example, command, situation));
    }
    learnIds(example.expected, output, ids);
    const mismatch = matchShape(
      example.expected.map((line) => substitute(line, ids)),
      output.replaceAll(situation.cwd, DOCS_WORKTREE).split("\n"),
    );
    assert.equal(mismatch, null, `${example.where}: $ ${command}\n${output}`);
  }
}

/** Runs one `replio …` line as a reader's shell would, stderr and stdout in the order written. */
async function runCommand(example: DocExample, command: string, situation: Situation) {
  assert.match(command, /^replio /, `${example.where}: examples run replio`);
  const replio = [Deno.execPath(), "run", "--no-prompt", "-A", MAIN].map(quote).join(" ");
  const out = await new Deno.Command("bash", {
    args: ["-c", `replio() { ${replio} "$@"; }; ${command} 2>&1`],
    cwd: situation.cwd,
    clearEnv: true,
    env: childEnv(situation.cwd, situation.env),
    stdin: "null",
    stdout: "piped",
  }).output();
  return { code: out.code, output: new TextDecoder().decode(out.stdout) };
}

/** Pairs the ids the page shows with those the run printed, first with first. */
function learnIds(expected: string[], output: string, ids: Map<string, string>): void {
  for (const pattern of ID_PATTERNS) {
    const shown = [...new Set(expected.join("\n").match(pattern) ?? [])];
    const printed = [...new Set(output.match(pattern) ?? [])];
    shown.forEach((id, i) => {
      if (!ids.has(id) && printed[i] !== undefined) ids.set(id, printed[i]);
    });
  }
}

function substitute(text: string, ids: Map<string, string>): string {
  let out = text;
  for (const [shown, real] of ids) out = out.replaceAll(shown, real);
  return out;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
