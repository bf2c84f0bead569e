/**
 * The warning before a message that cannot fit the model's window with what the context
 * already holds, and the question whether to send it anyway.
 * @module
 */
import type { PromptAnswer } from "../ui/terminal.ts";
import type { Styles } from "../ui/styles.ts";

/** The rough size of a token, for the warning before a message that will not fit. */
const CHARS_PER_TOKEN = 4;

/** Where the warning is shown and answered. */
export interface FitIo {
  styles: Styles;
  print(text: string, style?: (line: string) => string): void;
  question(prompt: string): Promise<PromptAnswer>;
}

/**
 * True when `prompt` (estimated at 4 characters a token) fits `window` beside `contextTokens`,
 * or when the person answers `y` to sending it anyway.
 */
export async function fitsContext(
  prompt: string,
  context: { tokens: number; window: number },
  io: FitIo,
): Promise<boolean> {
  const estimate = Math.ceil(prompt.length / CHARS_PER_TOKEN);
  if (context.tokens + estimate <= context.window) return true;
  io.print(
    `! This message is about ${estimate.toLocaleString("en-US")} tokens and the context holds ` +
      `${context.tokens.toLocaleString("en-US")}: together they exceed context_window ` +
      `(${context.window.toLocaleString("en-US")}): /compact first, shorten it, or send it anyway`,
    io.styles.yellow,
  );
  const answer = await io.question(`${io.styles.yellow("?")} Send anyway? [y/N] `);
  return answer.kind === "line" && /^\s*y(es)?\s*$/i.test(answer.text);
}
