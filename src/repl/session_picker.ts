/**
 * `replio --resume`: a list of the worktree's sessions to move through with the arrow keys
 * (first prompt, time, turns); Enter opens one, Esc, Ctrl-C or Ctrl-D starts a new session.
 * @module
 */
import type { SessionSummary } from "../session/mod.ts";
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";
import { formatTurns } from "./session_commands.ts";

/** Rows shown at once; the list scrolls past them. */
const VISIBLE_ROWS = 10;

/** What the picker needs of the terminal. */
export interface PickerTerminal {
  out: TextWriter;
  styles: Styles;
  /** Columns: rows are cut to fit, so redrawing never depends on wrapping. */
  width: number;
  /** Hands raw key chunks to `onKeys` until it returns true. */
  readKeys(onKeys: (keys: string) => boolean): Promise<void>;
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

/** Shows the picker; resolves to the chosen session id, or null for a new session. */
export async function pickSession(
  sessions: readonly SessionSummary[],
  terminal: PickerTerminal,
): Promise<string | null> {
  if (sessions.length === 0) return null;
  const { out, styles: s } = terminal;
  let selected = 0;
  let drawn = 0;
  let chosen: string | null = null;
  const draw = () => {
    const first = Math.max(
      0,
      Math.min(selected - VISIBLE_ROWS + 1, sessions.length - VISIBLE_ROWS),
    );
    const rows = sessions.slice(first, first + VISIBLE_ROWS).map((session, i) =>
      formatRow(session, first + i === selected, terminal.width, s)
    );
    const header = s.bold("Resume a session") +
      s.dim(` (${sessions.length}) · ↑/↓ move · Enter opens · Esc starts a new one`);
    // Back to the picker's first line, clear to the end of the screen, draw again.
    out.write((drawn ? `\x1b[${drawn}A\r\x1b[J` : "") + [header, ...rows].join("\n") + "\n");
    drawn = rows.length + 1;
  };
  draw();
  await terminal.readKeys((chunk) => {
    for (const key of parseKeys(chunk)) {
      if (key === "up") selected = Math.max(0, selected - 1);
      else if (key === "down") selected = Math.min(sessions.length - 1, selected + 1);
      else {
        chosen = key === "enter" ? sessions[selected]!.id : null;
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

function formatRow(session: SessionSummary, isSelected: boolean, width: number, s: Styles): string {
  const when = session.updated.slice(0, 16).replace("T", " ");
  const meta = `${when} · ${formatTurns(session.turns).padEnd(9)}`;
  const lead = isSelected ? "› " : "  ";
  const room = Math.max(10, (width || 80) - lead.length - meta.length - 2);
  const prompt = session.firstPrompt || "(no prompt)";
  const cut = prompt.length > room ? prompt.slice(0, room - 1) + "…" : prompt;
  const text = `${meta}  ${cut}`;
  return isSelected ? s.cyan(lead + text) : lead + s.dim(meta) + "  " + cut;
}
