/**
 * The `replio run --output text` renderer: the answer streams to stdout, activity lines,
 * errors and notes go to stderr so pipelines get only the answer.
 * @module
 */
import type { ConfirmAnswer, Sink, TurnEvent } from "./events.ts";
import { type ActivityOptions, formatActivity } from "./format_activity.ts";
import { CANCELLED_RESULT, cancelledLine, type Refusal, refusalLine } from "./refusal_line.ts";
import type { Styles } from "./styles.ts";
import type { TextWriter } from "./writer.ts";

/** Display switches for the headless renderer. */
export interface HeadlessTextOptions extends ActivityOptions {
  showErrors: boolean;
  showNotes: boolean;
}

/** Renders events for a non-interactive run; confirm and ask have no one to ask. */
export class HeadlessTextSink implements Sink {
  #answerEndsWithNewline = true;
  /** The refusal of the call whose result comes next (calls run one at a time). */
  #refusal: Refusal | null = null;

  constructor(
    private readonly out: TextWriter,
    private readonly err: TextWriter,
    private readonly styles: Styles,
    private readonly options: HeadlessTextOptions,
  ) {}

  emit(event: TurnEvent): void {
    const { styles, options } = this;
    switch (event.type) {
      case "text":
        this.out.write(event.delta);
        if (event.delta) this.#answerEndsWithNewline = event.delta.endsWith("\n");
        break;
      case "tool_call":
        this.err.write(styles.cyan(formatActivity(event.activity, options, event.name)) + "\n");
        break;
      case "permission":
        // A parked call has no refusal: the run stops there and says so itself.
        this.#refusal = event.decision === "granted" || event.decision === "parked"
          ? null
          : { tool: event.tool, decision: event.decision, reason: event.reason };
        break;
      case "tool_result":
        if (this.#refusal) {
          // The result is written for the model; the person gets what happened and the fix.
          this.err.write(styles.red(refusalLine(this.#refusal, false, "run")) + "\n");
          this.#refusal = null;
        } else if (event.is_error && event.output === CANCELLED_RESULT) {
          this.err.write(styles.yellow(cancelledLine("run")) + "\n");
        } else if (event.is_error && options.showErrors) {
          this.err.write(styles.red(`! ${event.output.split("\n")[0]}`) + "\n");
        } else if (event.is_note && options.showNotes) {
          this.err.write(styles.dim(`  ${event.output.split("\n")[0]}`) + "\n");
        }
        break;
      case "note":
        if (options.showNotes) this.err.write(styles.dim(`  ${event.message}`) + "\n");
        break;
      case "error":
        this.err.write(styles.red(`! Error: ${event.message}`) + "\n");
        break;
      case "turn_end":
        if (!this.#answerEndsWithNewline) this.out.write("\n");
        if (event.status !== "ok") this.err.write(styles.yellow(`(${event.status})`) + "\n");
        break;
      default:
        break;
    }
  }

  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }

  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }
}
