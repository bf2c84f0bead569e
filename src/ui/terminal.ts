/**
 * The REPL renderer: streamed answers as word-wrapped light markdown, thinking as a spinner
 * with a `+ Thought 2.1s` summary (or dimmed text), typed activity lines with their status
 * detail, echoed results, `! Error:` lines and notes, a footer with duration and tokens, and
 * the y/N and ask prompts (spec/tools.md §Status and activity lines).
 * @module
 */
import type {
  Activity,
  ConfirmAnswer,
  ConfirmRequest,
  Sink,
  TurnEvent,
  TurnStatus,
} from "./events.ts";
import type { Usage } from "../providers/types.ts";
import type { AskRequest } from "../tools/types.ts";
import { askConfirm, type Prompter } from "./confirm_prompt.ts";
import { echoLines } from "./echo_lines.ts";
import { formatActivity, statusDetail } from "./format_activity.ts";
import { MarkdownStream } from "./markdown.ts";
import { stripStyles, wrapText } from "./text_width.ts";
import { CANCELLED_RESULT, cancelledLine, type Refusal, refusalLine } from "./refusal_line.ts";
import { createStyles, type Styles } from "./styles.ts";
import type { TextWriter } from "./writer.ts";

/** The display keys of config (tool_status_visible, glyph_lines, …) as renderer switches. */
export interface TerminalDisplay {
  toolStatusVisible: boolean;
  glyphLines: boolean;
  glyphParams: boolean;
  showErrors: boolean;
  showNotes: boolean;
  showThinking: boolean;
}

export type { PromptAnswer, Prompter } from "./confirm_prompt.ts";

/** What the terminal renderer works with. */
export interface TerminalSinkOptions {
  out: TextWriter;
  styles: Styles;
  /** Columns to wrap at; read per line because terminals resize. */
  width: () => number;
  /** Draw the spinner (a terminal only: it rewrites its line). */
  animate: boolean;
  display: TerminalDisplay;
  prompter: Prompter;
  /** Called when the person presses Ctrl-C at an ask prompt: the turn is cancelled. */
  onInterrupt: () => void;
}

/** Echoed results (run_command) show at most this many lines; the model still gets all. */
const ECHO_LINES = 20;
const SPINNER_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const SPINNER_INTERVAL_MS = 80;

/** Renders a turn's events to the terminal and asks the person for confirmations. */
export class TerminalSink implements Sink {
  readonly #options: TerminalSinkOptions;
  #display: TerminalDisplay;
  readonly #answer: MarkdownStream;
  readonly #thought: MarkdownStream;
  #atLineStart = true;
  /** What the last block was, so blocks of different kinds get a blank line between them. */
  #lastBlock: "none" | "text" | "tools" = "none";
  #turnStarted = 0;
  #thinkingStarted: number | null = null;
  /** Calls whose result has not arrived: for echo, and to tell people what a refusal meant. */
  readonly #calls = new Map<string, PendingCall>();
  #spinner:
    | { label: string; started: number; timer: ReturnType<typeof setInterval>; frame: number }
    | null = null;
  #spinnerShown = false;
  /** Lines of a running command's live output on screen, redrawn in place (tool_progress). */
  #liveLines = 0;
  /** The last confirm was answered with Ctrl-C: the turn ends, its refusal needs no line. */
  #cancelled = false;

  constructor(options: TerminalSinkOptions) {
    this.#options = options;
    this.#display = options.display;
    this.#answer = new MarkdownStream({ styles: options.styles, width: options.width });
    // Thinking is shown as written, dimmed as a whole: no emphasis inside it.
    this.#thought = new MarkdownStream({ styles: createStyles(false), width: options.width });
  }

  /** Applies changed display settings (`/config show_thinking true`). */
  configure(display: TerminalDisplay): void {
    this.#display = display;
  }

  /** A turn (or a `/tool` run) starts: the footer measures from here. */
  beginTurn(): void {
    this.#turnStarted = performance.now();
    // The person's Enter left the cursor at a line start; output between turns is not ours.
    this.#atLineStart = true;
    this.#lastBlock = "none";
    this.#calls.clear();
    this.#spin("Working");
  }

  /** Ends whatever is open (spinner, partial line) so other output can follow. */
  settle(): void {
    this.#finishThinking();
    this.#stopSpinner();
    this.#write(this.#answer.end());
  }

  emit(event: TurnEvent): void {
    if (event.type !== "thinking") this.#finishThinking();
    // Live output stands in for the result, which replaces it.
    if (event.type !== "tool_progress") this.#clearLive();
    switch (event.type) {
      case "tool_progress":
        this.#progress(event.lines);
        break;
      case "thinking":
        this.#thinking(event.delta);
        break;
      case "text":
        this.#stopSpinner();
        if (this.#answer.atLineStart) this.#block("text");
        this.#write(this.#answer.push(event.delta));
        break;
      case "tool_call":
        this.#toolCall(event.id, event.name, event.activity);
        break;
      case "tool_result":
        this.#toolResult(event);
        break;
      case "permission":
        // Calls run one at a time: the refusal is the newest pending call's (whose name may
        // be an alias of the tool the permission names).
        if (event.decision !== "granted" && event.decision !== "parked") {
          const pending = [...this.#calls.values()].at(-1);
          if (pending) {
            pending.refusal = { tool: event.tool, decision: event.decision, reason: event.reason };
          }
        }
        break;
      case "note":
        if (this.#display.showNotes) this.#line(event.message, this.#options.styles.dim, "  ");
        break;
      case "error":
        this.#line(`! Error: ${event.message}`, this.#options.styles.red, "  ");
        break;
      case "turn_end":
        this.#turnEnd(event.status, event.usage);
        break;
      default:
        break;
    }
  }

  async confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.settle();
    const result = await askConfirm(request, {
      styles: this.#options.styles,
      display: this.#display,
      width: this.#options.width(),
      prompter: this.#options.prompter,
      line: (text, style, lead, indent) => this.#line(text, style, lead, indent),
      write: (text) => this.#write(text),
    });
    this.#cancelled = result === "cancel";
    const runs = result === "yes" || result === "always" ||
      (typeof result === "object" && "edited" in result);
    if (runs) this.#spin("Running");
    return result;
  }

  async ask(request: AskRequest & { from?: string }): Promise<string | null> {
    this.settle();
    const s = this.#options.styles;
    const from = request.from ? s.cyan(`[${request.from}] `) : "";
    this.#line(request.question, s.bold, `${s.yellow("?")} ${from}`, "  ");
    if (request.context) this.#line(request.context, s.dim, "  ");
    const options = request.options ?? [];
    options.forEach((option, i) => this.#line(option, (t) => t, `  ${i + 1}. `, "     "));
    const hint = options.length ? `answer (1-${options.length} or text)` : "answer";
    const answer = await this.#options.prompter.question(`  ${s.dim(hint + ":")} `);
    // Ctrl-C or Ctrl-D: the person will not answer; the turn is cancelled rather than guessed on.
    if (answer.kind !== "line") {
      this.#options.onInterrupt();
      return null;
    }
    const chosen = /^\s*(\d+)\s*$/.exec(answer.text);
    const index = chosen ? Number(chosen[1]) - 1 : -1;
    this.#spin("Working");
    return options[index] ?? answer.text.trim();
  }

  /** Stops the spinner timer; call when the REPL exits. */
  dispose(): void {
    this.#stopSpinner();
  }

  #thinking(delta: string): void {
    this.#thinkingStarted ??= performance.now();
    if (!this.#display.showThinking) {
      this.#spin("Thinking");
      return;
    }
    this.#stopSpinner();
    if (this.#thought.atLineStart) this.#block("text");
    this.#write(this.#options.styles.dim(this.#thought.push(delta)));
  }

  #finishThinking(): void {
    if (this.#thinkingStarted === null) return;
    const seconds = (performance.now() - this.#thinkingStarted) / 1000;
    this.#thinkingStarted = null;
    if (this.#display.showThinking) {
      this.#write(this.#options.styles.dim(this.#thought.end()));
      return;
    }
    this.#stopSpinner();
    this.#line(`+ Thought ${seconds.toFixed(1)}s`, this.#options.styles.dim);
  }

  #toolCall(id: string, name: string, activity: Activity): void {
    this.#stopSpinner();
    this.#write(this.#answer.end());
    this.#calls.set(id, { activity, refusal: null });
    if (this.#display.toolStatusVisible) {
      this.#block("tools");
      const s = this.#options.styles;
      const line = formatActivity(activity, this.#display, name);
      const glyph = this.#display.glyphLines && activity.glyph ? activity.glyph : "";
      const [first = "", ...rest] = wrapText(line, this.#options.width(), "  ");
      this.#write(
        (glyph ? s.cyan(glyph) + first.slice(glyph.length) : s.cyan(first)) + "\n" +
          rest.map((l) => l + "\n").join(""),
      );
      for (const detail of statusDetail(activity)) this.#line(detail, detailStyle(detail, s), "  ");
    }
    this.#spin("Running");
  }

  #toolResult(event: Extract<TurnEvent, { type: "tool_result" }>): void {
    this.#stopSpinner();
    const s = this.#options.styles;
    const call = this.#calls.get(event.id);
    this.#calls.delete(event.id);
    const activity = call?.activity;
    const firstLine = event.output.split("\n")[0] ?? "";
    if (call?.refusal) {
      // The result is written for the model ("do not retry it"); people get what happened.
      const { decision } = call.refusal;
      // A Ctrl-C at the prompt ends the turn; "(cancelled)" says all there is to say.
      if (!(decision === "declined" && this.#cancelled)) {
        const changesFiles = statusDetail(call.activity).length > 0;
        const line = refusalLine(call.refusal, changesFiles, "repl");
        this.#line(line, decision === "declined" ? s.yellow : s.red, "  ");
      }
    } else if (event.is_error && event.output === CANCELLED_RESULT) {
      this.#line(cancelledLine("repl"), s.yellow, "  ");
    } else if (event.is_error) {
      if (this.#display.showErrors) this.#line(`! ${firstLine}`, s.red, "  ");
    } else if (event.is_note) {
      if (this.#display.showNotes) this.#line(firstLine, s.dim, "  ");
    } else if (activity?.echo && this.#display.toolStatusVisible) {
      // Counted in the command's output, not in the cut result the model got.
      const { shown, more, keptId } = echoLines(event.output, ECHO_LINES);
      for (const line of shown) this.#line(line, s.dim, "  ");
      if (more > 0) {
        const kept = keptId ? ` (full output kept as ${keptId}: /output ${keptId})` : "";
        this.#line(
          `… ${formatCount(more)} more ${more === 1 ? "line" : "lines"}${kept}`,
          s.dim,
          "  ",
        );
      }
    }
    this.#spin("Working");
  }

  #turnEnd(status: TurnStatus, usage: Usage): void {
    if (status === "cancelled") this.#interruptAnswer();
    this.settle();
    const s = this.#options.styles;
    if (status !== "ok") this.#line(`(${status})`, status === "cancelled" ? s.yellow : s.red);
    const seconds = ((performance.now() - this.#turnStarted) / 1000).toFixed(1);
    const tokens = usage.total_tokens > 0
      ? ` · ${formatCount(usage.total_tokens)} tokens (${formatCount(usage.prompt_tokens)} in, ${
        formatCount(usage.completion_tokens)
      } out)`
      : "";
    this.#line(`${seconds}s${tokens}`, s.dim);
  }

  /**
   * A cancelled turn may stop mid-line, even mid-word: the line is ended with a mark so a
   * half word never reads as the answer's last word.
   */
  #interruptAnswer(): void {
    if (this.#answer.atLineStart) return;
    const rest = this.#answer.end().replace(/\n$/, "");
    this.#write(rest + this.#options.styles.dim("… (interrupted)") + "\n");
  }

  /** A blank line between a block of text and a block of tool lines. */
  #block(kind: "text" | "tools"): void {
    if (this.#lastBlock !== "none" && this.#lastBlock !== kind) this.#write("\n");
    this.#lastBlock = kind;
  }

  /**
   * Writes `text` word-wrapped and styled after `lead` (unstyled: it may carry its own
   * colour); wrapped lines start with `indent`.
   */
  #line(text: string, style: (t: string) => string, lead = "", indent = lead + "  "): void {
    if (!this.#atLineStart) this.#write("\n");
    const plainLead = stripStyles(lead);
    const lines = wrapText(plainLead + text, this.#options.width(), indent);
    const out = lines.map((line, i) =>
      i === 0
        ? lead + style(line.slice(plainLead.length)) + "\n"
        : indent + style(line.slice(indent.length)) + "\n"
    );
    this.#write(out.join(""));
  }

  #write(text: string): void {
    if (!text) return;
    this.#clearSpinner();
    this.#options.out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  /**
   * Redraws a running command's last lines, dimmed, above the spinner: only in a terminal, one
   * screen line each (cut to the width) so that moving back up over them is exact.
   */
  #progress(lines: readonly string[]): void {
    const width = this.#options.width();
    if (!this.#options.animate || !this.#display.toolStatusVisible || width < 8) return;
    this.#clearLive();
    if (!this.#atLineStart) this.#write("\n");
    const s = this.#options.styles;
    const shown = lines.map((line) => {
      const plain = stripStyles(line).replace(/\t/g, "  ");
      return `  ${s.dim(plain.length > width - 3 ? plain.slice(0, width - 4) + "…" : plain)}\n`;
    });
    this.#write(shown.join(""));
    this.#liveLines = shown.length;
  }

  #clearLive(): void {
    if (this.#liveLines === 0) return;
    this.#clearSpinner();
    this.#options.out.write(`\x1b[${this.#liveLines}A\r\x1b[J`);
    this.#liveLines = 0;
    this.#atLineStart = true;
  }

  /** Shows a spinner until output arrives; only at a line start and only in a terminal. */
  #spin(label: string): void {
    if (!this.#options.animate) return;
    if (this.#spinner) {
      this.#spinner.label = label;
      return;
    }
    const spinner = {
      label,
      started: performance.now(),
      frame: 0,
      timer: setInterval(() => this.#drawSpinner(), SPINNER_INTERVAL_MS),
    };
    this.#spinner = spinner;
  }

  #drawSpinner(): void {
    const spinner = this.#spinner;
    if (!spinner || !this.#atLineStart) return;
    const frame = SPINNER_FRAMES[spinner.frame++ % SPINNER_FRAMES.length];
    const seconds = ((performance.now() - spinner.started) / 1000).toFixed(1);
    this.#options.out.write(
      `\r\x1b[2K${this.#options.styles.cyan(frame ?? "")} ${
        this.#options.styles.dim(`${spinner.label}… ${seconds}s`)
      }`,
    );
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#options.out.write("\r\x1b[2K");
    this.#spinnerShown = false;
  }

  #stopSpinner(): void {
    if (!this.#spinner) return;
    clearInterval(this.#spinner.timer);
    this.#spinner = null;
    this.#clearSpinner();
  }
}

/** A call on its way: what the line showed, and the policy's or person's refusal if any. */
interface PendingCall {
  activity: Activity;
  refusal: Refusal | null;
}

/** Diff lines of a status preview keep their colour under the dimming. */
function detailStyle(line: string, s: Styles): (t: string) => string {
  if (line.startsWith("+") && !line.startsWith("+++")) return (t) => s.dim(s.green(t));
  if (line.startsWith("-") && !line.startsWith("---")) return (t) => s.dim(s.red(t));
  return s.dim;
}

function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
