/**
 * `replio --resume`: a list of the worktree's sessions to move through with the arrow keys
 * (first prompt, time, turns); Enter opens one, Esc, Ctrl-C or Ctrl-D starts a new session.
 * @module
 */
import type { SessionSummary } from "../session/mod.ts";
import type { Styles } from "../ui/styles.ts";
import { type PickerTerminal, pickFromList } from "./list_picker.ts";
import { formatTurns } from "./session_commands.ts";

export type { PickerTerminal } from "./list_picker.ts";

/** Shows the picker; resolves to the chosen session id, or null for a new session. */
export async function pickSession(
  sessions: readonly SessionSummary[],
  terminal: PickerTerminal,
): Promise<string | null> {
  const s = terminal.styles;
  const chosen = await pickFromList({
    items: sessions,
    header: s.bold("Resume a session") +
      s.dim(` (${sessions.length}) · ↑/↓ move · Enter opens · Esc starts a new one`),
    row: (session, isSelected, width) => formatRow(session, isSelected, width, s),
  }, terminal);
  return chosen?.id ?? null;
}

function formatRow(session: SessionSummary, isSelected: boolean, width: number, s: Styles): string {
  const when = session.updated.slice(0, 16).replace("T", " ");
  const meta = `${when} · ${formatTurns(session.turns).padEnd(9)}`;
  const lead = isSelected ? "› " : "  ";
  const room = Math.max(10, width - lead.length - meta.length - 2);
  const prompt = session.firstPrompt || "(no prompt)";
  const cut = prompt.length > room ? prompt.slice(0, room - 1) + "…" : prompt;
  const text = `${meta}  ${cut}`;
  return isSelected ? s.cyan(lead + text) : lead + s.dim(meta) + "  " + cut;
}
