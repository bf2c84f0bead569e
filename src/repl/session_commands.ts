/**
 * `/session`, `/compact`, `/clear` and `/exit`: the conversation's lifecycle. Sessions are the
 * same append-only files `replio sessions` lists; nothing here needs saving on exit.
 * @module
 */
import { listSessions } from "../session/mod.ts";
import { printDamage } from "./session_damage.ts";
import type { ReplContext, SlashCommand } from "./context.ts";
import { splitFirst } from "./slash.ts";

/** `/session [new | load ID | list]`. */
export const sessionCommand: SlashCommand = {
  name: "session",
  usage: "/session [new | load ID | list]",
  summary: "Show the session, start a new one, continue another, or list them",
  complete: () => ["new", "load", "list"],
  // Top-level sessions, newest first: what `/session list` shows and `load` opens.
  completeNext: async (repl, first) =>
    first === "load"
      ? (await listSessions(repl.worktree)).filter((s) => !s.parent).map((s) => s.id)
      : [],
  async run(repl, args) {
    const [action, rest] = splitFirst(args);
    switch (action) {
      case "":
        repl.print(
          `Session ${repl.session.id} · ${formatTurns(repl.session.turns)} · ${repl.session.path}`,
        );
        return;
      case "new":
        await repl.newSession();
        repl.print(`New session ${repl.session.id}`, repl.styles.dim);
        return;
      case "load":
        if (!rest) {
          repl.printError(
            "Cannot load a session: no id given: use /session load ID (/session list)",
          );
          return;
        }
        await repl.loadSession(rest);
        repl.print(
          `Continuing session ${repl.session.id} (${formatTurns(repl.session.turns)})` +
            (repl.model ? ` with model ${repl.model}` : ""),
          repl.styles.dim,
        );
        printDamage(repl);
        repl.showRecent();
        return;
      case "list":
        return await printSessions(repl);
      default:
        repl.printError(
          `Cannot run /session ${action}: unknown action: use new, load ID or list`,
        );
    }
  },
};

/** `/compact`. */
export const compactCommand: SlashCommand = {
  name: "compact",
  usage: "/compact",
  summary: "Summarise older turns now to free context",
  async run(repl) {
    if (!repl.model) {
      repl.printError(repl.modelProblem);
      return;
    }
    const summary = await repl.cancellable((signal) => repl.compact(signal));
    if (summary === null) {
      repl.print("Nothing to compact yet: the session is short", repl.styles.dim);
    } else repl.print(`Compacted. Summary:\n${summary}`, repl.styles.dim);
  },
};

/** `/clear`. */
export const clearCommand: SlashCommand = {
  name: "clear",
  usage: "/clear",
  summary: "Clear the screen and start a new session (the old one stays on disk)",
  async run(repl) {
    const old = repl.session;
    await repl.newSession();
    repl.clearScreen();
    // A new session whose turns all failed was discarded, not kept.
    const onDisk = await Deno.stat(old.path).then(() => true, () => false);
    const kept = onDisk ? ` (${old.id} kept: /session load ${old.id})` : "";
    repl.print(`New session ${repl.session.id}${kept}`, repl.styles.dim);
  },
};

/** `/exit`. */
export const exitCommand: SlashCommand = {
  name: "exit",
  usage: "/exit",
  summary: "Quit (Ctrl-D, or Ctrl-C twice, does too)",
  run(repl) {
    repl.requestExit();
  },
};

async function printSessions(repl: ReplContext): Promise<void> {
  const sessions = await listSessions(repl.worktree);
  if (sessions.length === 0) {
    repl.print("No sessions yet in this worktree", repl.styles.dim);
    return;
  }
  for (const s of sessions) {
    const mark = s.id === repl.session.id ? "*" : " ";
    const when = s.updated.slice(0, 16).replace("T", " ");
    repl.print(
      `${mark} ${s.id}  ${repl.styles.dim(`${when} · ${formatTurns(s.turns)}`)}  ${s.lastPrompt}`,
    );
  }
}

/**
 * A turn count for messages.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(formatTurns(1), "1 turn");
 * assert.equal(formatTurns(3), "3 turns");
 * ```
 */
export function formatTurns(count: number): string {
  return `${count} turn${count === 1 ? "" : "s"}`;
}
