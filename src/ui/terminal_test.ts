import assert from "node:assert/strict";
import type { Activity, TurnEvent } from "./events.ts";
import { createStyles } from "./styles.ts";
import { type TerminalDisplay, TerminalSink } from "./terminal.ts";
import { StringWriter } from "./writer.ts";

const DISPLAY: TerminalDisplay = {
  toolStatusVisible: true,
  glyphLines: true,
  glyphParams: true,
  showErrors: true,
  showNotes: true,
  showThinking: false,
};

/** Scripted answers: a string is a typed line, null is Ctrl-C, "\x04" is Ctrl-D. */
function sink(
  options: { display?: Partial<TerminalDisplay>; answers?: (string | null)[]; width?: number } = {},
) {
  const out = new StringWriter();
  const prompts: string[] = [];
  let interrupts = 0;
  const answers = [...(options.answers ?? [])];
  const terminal = new TerminalSink({
    out,
    styles: createStyles(false),
    width: () => options.width ?? 40,
    animate: false,
    display: { ...DISPLAY, ...options.display },
    prompter: {
      question(prompt) {
        prompts.push(prompt);
        out.write(prompt + "\n");
        const answer = answers.shift() ?? null;
        return Promise.resolve(
          answer === null
            ? { kind: "interrupt" }
            : answer === "\x04"
            ? { kind: "eof" }
            : { kind: "line", text: answer },
        );
      },
    },
    onInterrupt: () => interrupts++,
  });
  return { terminal, out, prompts, interrupts: () => interrupts };
}

const READ: Activity = {
  glyph: "←",
  verb: "Read",
  key: "engine.py",
  params: { offset: 299, limit: 85 },
  echo: false,
};
const USAGE = { prompt_tokens: 1000, completion_tokens: 234, total_tokens: 1234 };

function call(id: string, activity: Activity, name = "file_read"): TurnEvent {
  return { type: "tool_call", id, name, arguments: {}, activity };
}

function result(id: string, output: string, flags: { error?: boolean; note?: boolean } = {}) {
  return {
    type: "tool_result" as const,
    id,
    name: "file_read",
    output,
    is_error: flags.error ?? false,
    is_note: flags.note ?? false,
  };
}

/** The footer's duration varies; the rest is exact. */
function stable(text: string): string {
  return text.replace(/\d+\.\ds/g, "N.Ns");
}

Deno.test("TerminalSink renders text, activity lines with params, errors and a footer", () => {
  const { terminal, out } = sink();
  terminal.beginTurn();
  terminal.emit({ type: "text", delta: "Let me **look**." });
  terminal.emit(call("c1", READ));
  terminal.emit(result("c1", "1: x"));
  terminal.emit(call("c2", { ...READ, key: "gone.py", params: {} }));
  terminal.emit(
    result("c2", 'Error: no such file "gone.py": check the path\nmore', { error: true }),
  );
  terminal.emit({ type: "text", delta: "Done." });
  terminal.emit({ type: "turn_end", status: "ok", usage: USAGE });
  assert.equal(
    stable(out.text),
    [
      "Let me **look**.",
      "",
      "← Read engine.py [offset=299, limit=85]",
      "← Read gone.py",
      '  ! Error: no such file "gone.py": check',
      "    the path",
      "",
      "Done.",
      "N.Ns · 1,234 tokens (1,000 in, 234 out)",
      "",
    ].join("\n"),
  );
});

Deno.test("TerminalSink falls back to the oneliner and shows status detail lines dimmed", () => {
  const { terminal, out } = sink({ display: { glyphLines: false } });
  terminal.emit(call("c1", { ...READ, params: {}, status: "a.txt (2 lines)\n+one\n+two" }));
  assert.equal(out.text, "[file_read: a.txt (2 lines)]\n  +one\n  +two\n");
});

Deno.test("TerminalSink hides tool status when tool_status_visible is off but keeps errors", () => {
  const { terminal, out } = sink({ display: { toolStatusVisible: false } });
  terminal.emit(call("c1", READ));
  terminal.emit(result("c1", "Error: boom", { error: true }));
  assert.equal(out.text, "  ! Error: boom\n");
});

Deno.test("TerminalSink echoes results and notes dimmed, each behind its switch", () => {
  const { terminal, out } = sink();
  terminal.emit(call("c1", { glyph: "$", verb: "Run", key: "ls", params: {}, echo: true }));
  terminal.emit(result("c1", "a\nb\n"));
  terminal.emit(call("c2", READ));
  terminal.emit(result("c2", "(empty file)", { note: true }));
  terminal.emit({ type: "note", message: "context compacted" });
  assert.equal(
    out.text,
    "$ Run ls\n  a\n  b\n← Read engine.py [offset=299, limit=85]\n  (empty file)\n  context compacted\n",
  );
  const quiet = sink({ display: { showNotes: false, showErrors: false } });
  quiet.terminal.emit(result("c3", "(empty file)", { note: true }));
  quiet.terminal.emit(result("c4", "Error: x", { error: true }));
  assert.equal(quiet.out.text, "");
});

Deno.test("TerminalSink summarises thinking, or shows it dimmed with show_thinking", () => {
  const hidden = sink();
  hidden.terminal.emit({ type: "thinking", delta: "hmm " });
  hidden.terminal.emit({ type: "text", delta: "Answer" });
  hidden.terminal.emit({ type: "turn_end", status: "ok", usage: { ...USAGE, total_tokens: 0 } });
  assert.equal(stable(hidden.out.text), "+ Thought N.Ns\nAnswer\nN.Ns\n");
  const shown = sink({ display: { showThinking: true } });
  shown.terminal.emit({ type: "thinking", delta: "step one" });
  shown.terminal.emit({ type: "text", delta: "Answer" });
  shown.terminal.settle();
  assert.equal(shown.out.text, "step one\nAnswer\n");
});

Deno.test("TerminalSink confirm shows the activity label and maps the answer", async () => {
  const { terminal, prompts } = sink({ answers: ["y", "n", "", null, "\x04"], width: 100 });
  const request = {
    tool: "run_command",
    activity: { glyph: "$", verb: "Run", key: "pytest", params: { timeout: 600 }, echo: true },
    reason: "tool_permission.bash",
  };
  assert.equal(await terminal.confirm(request), "yes");
  assert.equal(await terminal.confirm(request), "no");
  assert.equal(await terminal.confirm(request), "no");
  assert.equal(await terminal.confirm(request), "cancel");
  assert.equal(await terminal.confirm(request), "no", "Ctrl-D means no");
  assert.equal(
    prompts[0],
    "? Allow $ Run pytest [timeout=600] (tool_permission.bash) [y/N] (t tell why) ",
  );
});

Deno.test("TerminalSink confirm explains a key that does not apply and asks again", async () => {
  const { terminal, out } = sink({ answers: ["a", "e", "y"], width: 100 });
  const request = {
    tool: "file_read",
    activity: { glyph: "←", verb: "Read", key: "/etc/hostname", params: {}, echo: false },
    reason: "outside worktree",
  };
  assert.equal(await terminal.confirm(request), "yes");
  const lines = out.text.split("\n");
  assert.deepEqual(lines.filter((line) => line.startsWith("  ")), [
    '  a: no "always" rule fits this call: a call outside the worktree asks every time; press y to allow',
    "    it once",
    "  e: this call has no command to edit; press y to allow it as shown",
  ]);
  assert.equal(lines.filter((line) => line.includes("[y/N]")).length, 3);
});

Deno.test("TerminalSink confirm 't' declines with the reason the model is to get", async () => {
  const request = {
    tool: "run_command",
    activity: { glyph: "$", verb: "Run", key: "rm -rf build", params: {}, echo: true },
    reason: "tool_permission.bash",
  };
  const told = sink({ answers: ["t", "  not on a Friday "] });
  assert.deepEqual(await told.terminal.confirm(request), { declined: "not on a Friday" });
  assert.match(told.out.text, /why \(the model is told\): \n$/);
  // An empty reason is a plain no; Ctrl-C there cancels the turn.
  assert.equal(await sink({ answers: ["t", ""] }).terminal.confirm(request), "no");
  assert.equal(await sink({ answers: ["t", null] }).terminal.confirm(request), "cancel");
});

Deno.test("TerminalSink ask numbers options, names a sub-agent and maps a number", async () => {
  const { terminal, out, interrupts } = sink({ answers: ["2", "free text", null] });
  const request = {
    question: "Which database?",
    context: "Both are installed",
    options: ["postgres", "sqlite"],
    target: "human" as const,
    from: "sub_ab12",
  };
  assert.equal(await terminal.ask(request), "sqlite");
  assert.equal(
    out.text,
    "? [sub_ab12] Which database?\n  Both are installed\n  1. postgres\n  2. sqlite\n  answer (1-2 or text): \n",
  );
  assert.equal(await terminal.ask(request), "free text");
  assert.equal(await terminal.ask(request), null);
  assert.equal(interrupts(), 1);
});

Deno.test("TerminalSink reports a cancelled turn and marks an answer cut off mid-line", () => {
  const { terminal, out } = sink();
  terminal.emit({ type: "text", delta: "partial ans" });
  terminal.emit({ type: "turn_end", status: "cancelled", usage: { ...USAGE, total_tokens: 0 } });
  // The half word is not left looking like the answer's last word.
  assert.equal(stable(out.text), "partial ans… (interrupted)\n(cancelled)\nN.Ns\n");
  const whole = sink();
  whole.terminal.emit({ type: "text", delta: "A whole line.\n" });
  whole.terminal.emit({
    type: "turn_end",
    status: "cancelled",
    usage: { ...USAGE, total_tokens: 0 },
  });
  assert.equal(stable(whole.out.text), "A whole line.\n(cancelled)\nN.Ns\n");
});

const EDIT: Activity = {
  glyph: "✎",
  verb: "Edit",
  key: "a.ts",
  params: {},
  status: "[file_edit: a.ts]\n-old\n+new",
  echo: false,
};

Deno.test("TerminalSink marks a declined edit's diff as not applied, in words for people", async () => {
  const { terminal, out } = sink({ answers: ["n"] });
  terminal.beginTurn();
  terminal.emit(call("c1", EDIT, "file_edit"));
  assert.equal(
    await terminal.confirm({ tool: "file_edit", activity: EDIT, reason: "tool_permission.edit" }),
    "no",
  );
  terminal.emit({
    type: "permission",
    tool: "file_edit",
    action: "ask",
    decision: "declined",
    reason: "tool_permission.edit",
  });
  terminal.emit({
    ...result(
      "c1",
      "Error: the user declined to run file_edit: do not retry it; ask what they want",
    ),
    name: "file_edit",
    is_error: true,
  });
  assert.equal(
    out.text,
    [
      "✎ Edit a.ts",
      "  -old",
      "  +new",
      // At 40 columns the question wraps at word boundaries, never inside a word.
      "? Allow ✎ Edit a.ts",
      "  (tool_permission.edit) [y/N] (t tell",
      "  why) ",
      "  ✗ Not applied: you declined it",
      "",
    ].join("\n"),
  );
});

Deno.test("TerminalSink tells people what a policy refusal means, not the model's instructions", () => {
  const { terminal, out } = sink();
  terminal.beginTurn();
  terminal.emit(call("c1", { ...READ, glyph: "$", verb: "Run", key: "rm -rf x" }, "run_command"));
  terminal.emit({
    type: "permission",
    tool: "run_command",
    action: "deny",
    decision: "denied",
    reason: "mode plan",
  });
  terminal.emit({
    ...result(
      "c1",
      "Error: run_command is denied by policy (mode plan): do not retry it; use another tool or approach",
    ),
    name: "run_command",
    is_error: true,
  });
  const text = out.text.replace(/\n +/g, " ");
  assert.ok(!text.includes("do not retry"), text);
  assert.match(
    text,
    /! Not run: mode plan does not allow run_command: switch modes with \/mode or Shift\+Tab/,
  );
});

Deno.test("TerminalSink redraws a running command's live lines in place and clears them for the result", () => {
  const out = new StringWriter();
  const terminal = new TerminalSink({
    out,
    styles: createStyles(false),
    width: () => 20,
    animate: true,
    display: DISPLAY,
    prompter: { question: () => Promise.resolve({ kind: "eof" }) },
    onInterrupt: () => {},
  });
  try {
    const run: Activity = { glyph: "$", verb: "Run", key: "make", params: {}, echo: true };
    terminal.emit(call("c1", run, "run_command"));
    const before = out.text.length;
    terminal.emit({ type: "tool_progress", id: "c1", name: "run_command", lines: ["one", "two"] });
    terminal.emit({
      type: "tool_progress",
      id: "c1",
      name: "run_command",
      lines: ["two", "three", "a line longer than the terminal"],
    });
    terminal.emit({
      type: "tool_result",
      id: "c1",
      name: "run_command",
      output: "exit 0\ndone",
      is_error: false,
      is_note: false,
    });
    assert.equal(
      out.text.slice(before),
      "  one\n  two\n" +
        "\x1b[2A\r\x1b[J" +
        "  two\n  three\n  a line longer th…\n" +
        "\x1b[3A\r\x1b[J" +
        "  exit 0\n  done\n",
    );
  } finally {
    terminal.dispose();
  }
});

Deno.test("TerminalSink shows no live lines when output is not a terminal", () => {
  const { terminal, out } = sink();
  terminal.emit({ type: "tool_progress", id: "c1", name: "run_command", lines: ["one"] });
  assert.equal(out.text, "");
});
