/**
 * `deno task screenshot [--out FILE]`: the picture at the top of the README, made from a real REPL
 * session so it never drifts from what replio shows. replio runs in tmux (colour on) in a temporary
 * worktree against the scripted mock model on 127.0.0.1; the session below is typed in, the screen
 * is captured with its colours (`capture-pane -e`) and drawn as SVG (scripts/ansi_to_svg.ts).
 * Default output: docs/screenshot.svg.
 *
 * ```sh
 * deno task screenshot                       # rewrite docs/screenshot.svg
 * deno task screenshot --out /tmp/shot.svg
 * ```
 * @module
 */
import { parseArgs } from "node:util";
import { startMockModel } from "../tests/support/mock_model.ts";
import { TmuxRepl } from "../tests/support/tmux_repl.ts";
import { tempWorktree } from "../tests/support/worktree.ts";
import { ansiToSvg } from "./ansi_to_svg.ts";

/** Columns of the captured terminal. */
const COLUMNS = 92;
/** Where the worktree shows in the picture, in place of the temporary folder's path. */
const SHOWN_WORKTREE = "~/src/greeter";
/** The model's name in the banner; the mock lists it. */
const MODEL = "qwen3-coder";

/** The questions typed at the prompt, as the test checks them in the picture. */
export const SCREENSHOT_PROMPTS = ["what does greet.ts do?", "run its test"] as const;

const FILES = {
  "README.md": "# greeter\n\nSays hello.\n",
  "greet.ts": "export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n",
  "greet_test.sh": "#!/bin/sh\ngrep -q 'Hello, ' greet.ts && echo 'ok: greet says hello'\n",
};

/** Writes the picture to `out`; returns the capture it was drawn from. */
export async function makeScreenshot(out: string): Promise<string> {
  await using wt = await tempWorktree(FILES);
  await using mock = startMockModel([
    {
      thinking: "The user asks about greet.ts: read it first.",
      toolCalls: [{ name: "file_read", arguments: { path: "greet.ts" } }],
    },
    {
      text: "`greet(name)` returns the greeting **`Hello, <name>!`**. It is the module's only " +
        "export, and nothing else in the project calls it yet.",
    },
    { toolCalls: [{ name: "run_command", arguments: { command: "sh greet_test.sh" } }] },
    { text: "The test passes: `greet` says hello." },
  ], { models: [MODEL] });
  await using repl = await TmuxRepl.start(wt.path, ["--base-url", mock.baseUrl, "--model", MODEL], {
    width: COLUMNS,
  });
  const [first, second] = SCREENSHOT_PROMPTS;
  await repl.enter(first);
  // replio wraps the answer at the terminal's width: wait for words that stay on one line.
  await repl.waitFor("calls it yet", "the first answer");
  await repl.waitForPrompt();
  await repl.enter(second);
  await repl.waitFor(/Allow .*sh greet_test\.sh/, "the confirm prompt of run_command");
  await repl.keys("y");
  await repl.waitFor("The test passes", "the second answer");
  await repl.waitForPrompt();
  const capture = (await repl.screen(true)).replaceAll(wt.path, SHOWN_WORKTREE);
  // Quit before the worktree goes: replio writes its history and session up to its exit.
  await repl.enter("/exit");
  await repl.waitForExit();
  await Deno.writeTextFile(out, ansiToSvg(capture, { columns: COLUMNS, title: "replio" }));
  return capture;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { out: { type: "string", default: "docs/screenshot.svg" } },
  });
  try {
    await makeScreenshot(values.out);
  } catch (error) {
    // A missing tmux or a session that never reached its answer: one line, not a stack.
    const message = error instanceof Error ? error.message : String(error);
    Deno.stderr.writeSync(new TextEncoder().encode(`screenshot: ${message}\n`));
    Deno.exit(1);
  }
  Deno.stdout.writeSync(new TextEncoder().encode(`screenshot: wrote ${values.out}\n`));
}
