/**
 * The lines an exact-text replacement changes, worked out from the occurrences alone: only the
 * lines around each occurrence are compared, so a one-line edit in a 10 MB file, or every
 * occurrence in it, costs little more than the replacement itself.
 * @module
 */

/** One changed block: the lines removed at `oldStart` (1-based) and the lines put there. */
export interface LineChange {
  oldStart: number;
  removed: string[];
  added: string[];
}

/** Where the occurrences are and what replaces them. */
export interface Replacement {
  /** The text without its byte-order mark. */
  body: string;
  /** Ascending, non-overlapping starts of `old` in `body`. */
  starts: readonly number[];
  oldLength: number;
  replacement: string;
}

/**
 * The changed lines of a replacement, in file order. Within a block that spans several lines
 * on both sides, jsdiff finds the lines that really changed.
 */
export async function lineChanges(edit: Replacement): Promise<LineChange[]> {
  const { body, starts, oldLength, replacement } = edit;
  const lineStarts = startsOfLines(body);
  const lineOf = (offset: number) => lastAtMost(lineStarts, offset);
  const changes: LineChange[] = [];
  let diffArrays: typeof import("diff").diffArrays | undefined;
  for (let i = 0; i < starts.length;) {
    // Occurrences sharing a line are one block.
    const first = lineOf(starts[i]!);
    let last = lineOf(starts[i]! + oldLength - 1);
    let j = i + 1;
    while (j < starts.length && lineOf(starts[j]!) <= last) {
      last = lineOf(starts[j]! + oldLength - 1);
      j++;
    }
    const from = lineStarts[first]!;
    const to = last + 1 < lineStarts.length ? lineStarts[last + 1]! : body.length;
    let after = "";
    let at = from;
    for (const start of starts.slice(i, j)) {
      after += body.slice(at, start) + replacement;
      at = start + oldLength;
    }
    after += body.slice(at, to);
    const block = trimCommonLines(body.slice(from, to).split("\n"), after.split("\n"));
    const oldStart = first + 1 + block.skipped;
    if (block.removed.length > 1 && block.added.length > 1) {
      diffArrays ??= (await import("diff")).diffArrays;
      changes.push(...splitBlock(diffArrays(block.removed, block.added), oldStart));
    } else if (block.removed.length + block.added.length > 0) {
      changes.push({ oldStart, removed: block.removed, added: block.added });
    }
    i = j;
  }
  return changes;
}

/** Lines added and removed over all changes. */
export function countLines(changes: readonly LineChange[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    added += change.added.length;
    removed += change.removed.length;
  }
  return { added, removed };
}

/**
 * Unified-diff hunks (`@@ -a,b +c,d @@`, then ` `, `-` and `+` lines) with `context` lines
 * around each change; nearby changes share a hunk, as `diff -u` prints them.
 */
export function formatHunks(
  body: string,
  changes: readonly LineChange[],
  context: number,
): string[] {
  const lineStarts = startsOfLines(body);
  const lineCount = body.endsWith("\n") ? lineStarts.length - 1 : lineStarts.length;
  const lineText = (index: number) => {
    const end = index + 1 < lineStarts.length ? lineStarts[index + 1]! - 1 : body.length;
    return body.slice(lineStarts[index]!, end).replace(/\r$/, "");
  };
  const out: string[] = [];
  let hunk: { header: number; oldStart: number; newStart: number; lines: string[] } | null = null;
  let oldEnd = 0; // 0-based line after the previous change's removed lines
  let delta = 0; // lines added minus removed before the current change
  const close = () => {
    if (!hunk) return;
    const tail = Math.min(lineCount, oldEnd + context);
    for (let k = oldEnd; k < tail; k++) hunk.lines.push(` ${lineText(k)}`);
    const oldCount = hunk.lines.filter((l) => !l.startsWith("+")).length;
    const newCount = hunk.lines.filter((l) => !l.startsWith("-")).length;
    out[hunk.header] = `@@ -${oldCount ? hunk.oldStart : hunk.oldStart - 1},${oldCount} ` +
      `+${newCount ? hunk.newStart : hunk.newStart - 1},${newCount} @@`;
    out.push(...hunk.lines);
    hunk = null;
  };
  for (const change of changes) {
    const start = change.oldStart - 1;
    if (hunk && start - oldEnd <= 2 * context) {
      for (let k = oldEnd; k < start; k++) hunk.lines.push(` ${lineText(k)}`);
    } else {
      close();
      const from = Math.max(0, start - context);
      hunk = { header: out.length, oldStart: from + 1, newStart: from + 1 + delta, lines: [] };
      out.push("");
      for (let k = from; k < start; k++) hunk.lines.push(` ${lineText(k)}`);
    }
    hunk!.lines.push(...change.removed.map((l) => `-${l.replace(/\r$/, "")}`));
    hunk!.lines.push(...change.added.map((l) => `+${l.replace(/\r$/, "")}`));
    oldEnd = start + change.removed.length;
    delta += change.added.length - change.removed.length;
  }
  close();
  return out;
}

/** Offsets where each line starts; a final newline starts one more, empty line. */
function startsOfLines(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

/** Index of the last element `<= value` in an ascending array (binary search). */
function lastAtMost(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (sorted[middle]! <= value) low = middle;
    else high = middle - 1;
  }
  return low;
}

function trimCommonLines(
  before: string[],
  after: string[],
): { skipped: number; removed: string[]; added: string[] } {
  let prefix = 0;
  while (prefix < before.length && prefix < after.length && before[prefix] === after[prefix]) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < before.length - prefix && suffix < after.length - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) suffix++;
  return {
    skipped: prefix,
    removed: before.slice(prefix, before.length - suffix),
    added: after.slice(prefix, after.length - suffix),
  };
}

/** jsdiff's parts of one block as separate changes, so unchanged lines inside show as context. */
function splitBlock(
  parts: { value: string[]; added?: boolean; removed?: boolean }[],
  oldStart: number,
): LineChange[] {
  const changes: LineChange[] = [];
  let line = oldStart;
  let current: LineChange | null = null;
  for (const part of parts) {
    if (!part.added && !part.removed) {
      current = null;
      line += part.value.length;
      continue;
    }
    current ??= changes[changes.push({ oldStart: line, removed: [], added: [] }) - 1]!;
    if (part.removed) {
      current.removed.push(...part.value);
      line += part.value.length;
    } else {
      current.added.push(...part.value);
    }
  }
  return changes;
}
