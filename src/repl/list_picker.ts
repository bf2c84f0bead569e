/**
 * A list to move through with the arrow keys (or j/k) and choose from with Enter; Esc, Ctrl-C,
 * Ctrl-D or q leave it without a choice. It scrolls past ten rows and redraws in place, so its
 * rows are cut to the width rather than wrapped.
 * @module
 */
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";

/** Rows shown at once; the list scrolls past them. */
const VISIBLE_ROWS = 10;

/** What a picker needs of the terminal. */
export interface PickerTerminal {
  out: TextWriter;
  styles: Styles;
  /** Columns: rows are cut to fit, so redrawing never depends on wrapping. */
  width: number;
  /** Hands raw key chunks to `onKeys` until it returns true. */
  readKeys(onKeys: (keys: string) => boolean): Promise<void>;
}

/** What to show. */
export interface PickerList<T> {
  items: readonly T[];
  /** The first line, above the rows. */
  header: string;
  /** The row selected at first. */
  initial?: number;
  /** One row, cut to `width`; `isSelected` rows are drawn highlighted by it. */
  row(item: T, isSelected: boolean, width: number): string;
}

/** A key the picker acts on. */
type PickerKey = "up" | "down" | "enter" | "cancel";

const KEYS: readonly [string, PickerKey][] = [
  ["\x1b[A", "up"],
  ["\x1bOA", "up"],
  ["\x1b[B", "down"],
  ["\x1bOB", "down"],
  ["\r", "enter"],
  ["\n", "enter"],
  ["\x03", "cancel"],
  ["\x04", "cancel"],
  ["\x1b", "cancel"],
  ["k", "up"],
  ["j", "down"],
  ["q", "cancel"],
];

/** Shows the list; resolves to the chosen item, or null when the person left without one. */
export async function pickFromList<T>(
  list: PickerList<T>,
  terminal: PickerTerminal,
): Promise<T | null> {
  const { items } = list;
  if (items.length === 0) return null;
  const { out } = terminal;
  let selected = Math.min(Math.max(list.initial ?? 0, 0), items.length - 1);
  let drawn = 0;
  let chosen: T | null = null;
  const draw = () => {
    const first = Math.max(0, Math.min(selected - VISIBLE_ROWS + 1, items.length - VISIBLE_ROWS));
    const rows = items.slice(first, first + VISIBLE_ROWS).map((item, i) =>
      list.row(item, first + i === selected, terminal.width || 80)
    );
    // Back to the picker's first line, clear to the end of the screen, draw again.
    out.write((drawn ? `\x1b[${drawn}A\r\x1b[J` : "") + [list.header, ...rows].join("\n") + "\n");
    drawn = rows.length + 1;
  };
  draw();
  await terminal.readKeys((chunk) => {
    for (const key of parseKeys(chunk)) {
      if (key === "up") selected = Math.max(0, selected - 1);
      else if (key === "down") selected = Math.min(items.length - 1, selected + 1);
      else {
        chosen = key === "enter" ? items[selected]! : null;
        return true;
      }
    }
    draw();
    return false;
  });
  return chosen;
}

/** The picker keys in a chunk, in order; other bytes are ignored. */
function parseKeys(chunk: string): PickerKey[] {
  const keys: PickerKey[] = [];
  let rest = chunk;
  while (rest) {
    const match = KEYS.find(([sequence]) => rest.startsWith(sequence));
    if (match) keys.push(match[1]);
    rest = rest.slice(match ? match[0].length : 1);
  }
  return keys;
}
