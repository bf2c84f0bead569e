/**
 * A prompt answered with one key, as Claude Code's and Codex's confirmations are: `y` acts at
 * once, Enter takes the default. Without a terminal (piped input) it reads one line instead.
 * @module
 */
import type { PromptAnswer } from "../ui/terminal.ts";

/** What reading one key needs of the line editor. */
export interface KeySource {
  readonly isTerminal: boolean;
  /** Hands raw key chunks to `onKeys` until it returns true. */
  readKeys(onKeys: (keys: string) => boolean): Promise<void>;
  /** One typed line (piped input). */
  question(prompt: string): Promise<PromptAnswer>;
  /** Writes to the terminal. */
  write(text: string): void;
}

const CTRL_C = "\x03";
const CTRL_D = "\x04";
const ESC = "\x1b";

/**
 * Shows `prompt` and waits for Enter (a line of ""), one of the `accepted` letters (case
 * folded, echoed after the prompt), Ctrl-C or Esc (`interrupt`) or Ctrl-D (`eof`); other keys
 * are ignored, so a stray arrow key answers nothing.
 */
export async function readKey(
  source: KeySource,
  prompt: string,
  accepted: string,
): Promise<PromptAnswer> {
  if (!source.isTerminal) return await source.question(prompt);
  source.write(prompt);
  let answer: PromptAnswer | null = null;
  await source.readKeys((chunk) => {
    answer = keyAnswer(chunk, accepted);
    if (answer === null) return false;
    source.write(`${answer.kind === "line" ? answer.text : ""}\n`);
    return true;
  });
  return answer ?? { kind: "eof" };
}

/**
 * The answer one chunk of keys gives, or null when it holds none the prompt takes.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(keyAnswer("Y", "yn"), { kind: "line", text: "y" });
 * assert.deepEqual(keyAnswer("\r", "yn"), { kind: "line", text: "" });
 * assert.deepEqual(keyAnswer("\x1b", "yn"), { kind: "interrupt" });
 * assert.equal(keyAnswer("\x1b[A", "yn"), null);
 * assert.equal(keyAnswer("x", "yn"), null);
 * ```
 */
export function keyAnswer(chunk: string, accepted: string): PromptAnswer | null {
  // A lone Esc is the key; Esc followed by more is an arrow's or a function key's sequence.
  if (chunk === ESC) return { kind: "interrupt" };
  if (chunk.startsWith(ESC)) return null;
  for (const char of chunk) {
    if (char === CTRL_C) return { kind: "interrupt" };
    if (char === CTRL_D) return { kind: "eof" };
    if (char === "\r" || char === "\n") return { kind: "line", text: "" };
    const key = char.toLowerCase();
    if (accepted.includes(key)) return { kind: "line", text: key };
  }
  return null;
}
