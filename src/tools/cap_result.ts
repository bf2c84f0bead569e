/**
 * The result-size rule of spec/tools.md §Result size.
 * @module
 */
import { formatBytes, omittedNote, type OutputStore } from "./output_store.ts";

/** The marker that ends a capped result. */
export const TRUNCATED_MARKER = "... (truncated)";

/**
 * Cuts `text` to at most `maxChars` at a line boundary and appends the truncation marker;
 * `0` means unlimited. A single line longer than the cap is cut mid-line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(capResult("aaa\nbbb\nccc", 9), "aaa\nbbb\n... (truncated)");
 * assert.equal(capResult("short", 0), "short");
 * ```
 */
export function capResult(text: string, maxChars: number): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  const cut = text.lastIndexOf("\n", maxChars - 1);
  const kept = cut > 0 ? text.slice(0, cut + 1) : text.slice(0, maxChars) + "\n";
  return kept + TRUNCATED_MARKER;
}

/** Characters of the cap kept for the omitted-lines note. */
const NOTE_CHARS = 400;

/**
 * Caps `text` like {@link capResult}, but keeps nothing from the model: the whole text goes to
 * `store` under an output id, and the model gets its head and tail with a line saying exactly
 * which lines were left out and how to read or grep them with `tool_output`. Without a store
 * (`replio tool`, a test without a session) it is {@link capResult}.
 */
export function capResultKept(
  text: string,
  maxChars: number,
  store: OutputStore | undefined,
): string {
  if (maxChars <= 0 || text.length <= maxChars) return text;
  // `tool_output.max_mb: 0` keeps nothing: the result is cut as without a store.
  if (store === undefined || store.maxBytes <= 0 || maxChars < NOTE_CHARS * 2) {
    return capResult(text, maxChars);
  }
  const kept = store.save(text);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const room = maxChars - NOTE_CHARS;
  const head = takeLines(lines, 0, 1, Math.floor(room / 2));
  const tail = takeLines(
    lines,
    lines.length - 1,
    -1,
    room - charsOf(head),
    lines.length - head.length,
  );
  tail.reverse();
  // A first line longer than half the cap shows its start; its line number is still 1.
  let headText = head.join("\n");
  let first = head.length + 1;
  if (head.length === 0) {
    const line = lines[0] ?? "";
    const shown = Math.floor(room / 2);
    headText = `${line.slice(0, shown)} … (${(line.length - shown).toLocaleString("en-US")} ` +
      `more chars on this line)`;
    first = 2;
  }
  const omittedLines = lines.length - (first - 1) - tail.length;
  const encoder = new TextEncoder();
  const shownBytes = encoder.encode(lines.slice(0, first - 1).join("\n")).length + first - 1 +
    encoder.encode(tail.join("\n")).length + tail.length;
  const totalBytes = kept.bytes + kept.droppedBytes;
  let note = omittedNote(kept, {
    lines: omittedLines,
    bytes: Math.max(0, totalBytes - shownBytes),
    first,
  });
  if (kept.droppedBytes > 0) {
    note += ` (only the first ${formatBytes(kept.bytes)} were kept: tool_output.max_mb)`;
  }
  return [headText, note, ...tail].filter((part, i) => i === 1 || part !== "").join("\n");
}

/** Whole lines from `start` in direction `step`, within `budget` chars and `most` lines. */
function takeLines(
  lines: readonly string[],
  start: number,
  step: 1 | -1,
  budget: number,
  most = lines.length,
): string[] {
  const taken: string[] = [];
  let used = 0;
  for (let i = start; i >= 0 && i < lines.length && taken.length < most; i += step) {
    const line = lines[i]!;
    if (used + line.length + 1 > budget) break;
    taken.push(line);
    used += line.length + 1;
  }
  return taken;
}

function charsOf(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + line.length + 1, 0);
}
