/**
 * The REPL's confirm prompt for an ask-gated call: the activity line (whole, wrapped at word
 * boundaries), the resolved path and a protected path's warning, then
 * `(reason) [y/N] (a always, e edit, t tell why)` answered with one key: `y` runs it, Enter or
 * `n` declines, `a` also allows the rule shown above for the session, `e` edits the command,
 * `t` declines with a reason the model is told. A key that does not apply says why and asks
 * again.
 * @module
 */
import type { ConfirmAnswer, ConfirmRequest } from "./events.ts";
import { type ActivityOptions, formatConfirm } from "./format_activity.ts";
import { wrapText } from "./text_width.ts";
import type { Styles } from "./styles.ts";

/** What the person did at a prompt: typed a line, pressed Ctrl-C, or Ctrl-D (or input ended). */
export type PromptAnswer = { kind: "line"; text: string } | { kind: "interrupt" } | {
  kind: "eof";
};

/** Reads answers from the person. */
export interface Prompter {
  /** One line; `initial` is put on the line for editing. */
  question(prompt: string, initial?: string): Promise<PromptAnswer>;
  /**
   * One key of `accepted` (Enter gives ""), where a terminal can read single keys; without it
   * the confirm prompt reads a line.
   */
  key?(prompt: string, accepted: string): Promise<PromptAnswer>;
}

/** What the confirm prompt writes with and reads from. */
export interface ConfirmIo {
  styles: Styles;
  display: ActivityOptions;
  /** Columns to wrap at; 0 wraps nothing. */
  width: number;
  prompter: Prompter;
  /** Writes `text` word-wrapped after `lead`, continuation lines after `indent`. */
  line(text: string, style: (t: string) => string, lead?: string, indent?: string): void;
  /** Writes text as it is (lines that already fit). */
  write(text: string): void;
}

/** Keys the prompt reads; those that do not apply to a call are explained, not ignored. */
const KEYS = "ynaet";

/** Shows the prompt for `request` and returns the person's answer. */
export async function askConfirm(request: ConfirmRequest, io: ConfirmIo): Promise<ConfirmAnswer> {
  const s = io.styles;
  // The rule "a" would accept is shown before anyone accepts it.
  if (request.always) io.line(`a: always allow ${request.always} in this session`, s.dim, "  ");
  const prompt = drawQuestion(request, io);
  for (;;) {
    const answer = await (io.prompter.key?.(prompt, KEYS) ?? io.prompter.question(prompt));
    const result = await confirmAnswer(answer, request, io);
    if (result !== "again") return result;
  }
}

/**
 * Draws everything above the answer and returns the prompt line itself. One line when it all
 * fits; else the label, path and warning wrapped, then the question wrapped at word boundaries
 * (a terminal would cut `tool_permission.bash` mid-word at 40 columns).
 */
function drawQuestion(request: ConfirmRequest, io: ConfirmIo): string {
  const s = io.styles;
  const text = formatConfirm(request, io.display);
  const hints = [
    ...(request.always ? ["a always"] : []),
    ...(request.editable !== undefined ? ["e edit"] : []),
    "t tell why",
  ];
  const plain = `(${request.reason}) [y/N] (${hints.join(", ")})`;
  const lead = `${s.yellow("?")} Allow `;
  const [first = "", ...more] = text.label;
  const oneLine = `? Allow ${first} ${plain}`;
  if (!more.length && !text.path && !text.warning && fits(oneLine, io.width)) {
    return `${lead}${first} ${styleQuestion(plain, s)} `;
  }
  io.line(first, (t) => t, lead, "    ");
  for (const line of more) io.line(line, (t) => t, "    ");
  if (text.path) io.line(text.path, s.dim, "  ");
  if (text.warning) io.line(text.warning, s.yellow, `  ${s.yellow("!")} `);
  const lines = io.width ? wrapText(`  ${plain}`, io.width - 1, "  ") : [`  ${plain}`];
  const last = lines.pop()!;
  io.write(lines.map((line) => styleQuestion(line, s) + "\n").join(""));
  return `${styleQuestion(last, s)} `;
}

/** Whether `text` and the answer's key fit on one line of `width` columns. */
function fits(text: string, width: number): boolean {
  return width === 0 || text.length + 2 <= width;
}

/** The question's parts in parentheses dimmed; `[y/N]` stands out. */
function styleQuestion(line: string, s: Styles): string {
  return line.split(/(\[y\/N\])/).map((part) => part === "[y/N]" ? part : s.dim(part)).join("");
}

/** What one answer means; `again` when the key does not apply to this call (said why). */
async function confirmAnswer(
  answer: PromptAnswer,
  request: ConfirmRequest,
  io: ConfirmIo,
): Promise<ConfirmAnswer | "again"> {
  if (answer.kind === "interrupt") return "cancel";
  if (answer.kind === "eof") return "no";
  const s = io.styles;
  const key = answer.text.trim().toLowerCase();
  if (key === "y" || key === "yes") return "yes";
  if (key === "a" || key === "always") {
    if (request.always) return "always";
    io.line(
      `a: no "always" rule fits this call: ${whyNoRule(request)}; press y to allow it once`,
      s.yellow,
      "  ",
    );
    return "again";
  }
  if (key === "e" || key === "edit") {
    if (request.editable === undefined) {
      io.line("e: this call has no command to edit; press y to allow it as shown", s.yellow, "  ");
      return "again";
    }
    const edited = await io.prompter.question(`  ${s.dim("edit:")} `, request.editable);
    if (edited.kind === "interrupt") return "cancel";
    return edited.kind === "line" && edited.text.trim() ? { edited: edited.text } : "no";
  }
  if (key === "t" || key === "tell") {
    const reason = await io.prompter.question(`  ${s.dim("why (the model is told):")} `);
    if (reason.kind === "interrupt") return "cancel";
    return reason.kind === "line" && reason.text.trim() ? { declined: reason.text.trim() } : "no";
  }
  return "no";
}

/** Why a call is offered no "always" rule, from what the prompt shows. */
function whyNoRule(request: ConfirmRequest): string {
  if (request.protectedPath !== undefined) {
    return `writing ${request.protectedPath} asks every time`;
  }
  if (request.reason.startsWith("outside worktree")) {
    return "a call outside the worktree asks every time";
  }
  return `${request.tool} asks every time for a call like this (${request.reason})`;
}
