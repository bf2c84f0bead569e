/**
 * `/undo` and `/diff`: the files the session's file tools changed. Each turn keeps a checkpoint
 * of the files it changed (beside the session file); `/undo` puts the newest turn's files back,
 * `/diff` shows every change the session made since each file was first touched.
 * @module
 */
import { relative } from "../fs/path.ts";
import type { ReplContext, SlashCommand } from "./context.ts";

/** Lines of one file's diff shown before the rest is summarised. */
const MAX_DIFF_LINES = 200;

/** `/undo`. */
export const undoCommand: SlashCommand = {
  name: "undo",
  usage: "/undo",
  summary: "Put back the files the last turn's file tools changed",
  async run(repl) {
    const checkpoints = repl.session.checkpoints;
    const turn = await checkpoints.latestTurn();
    if (turn === null) {
      repl.print(
        "Nothing to undo: no file tool changed a file in this session (commands are not tracked)",
        repl.styles.dim,
      );
      return;
    }
    const restored = await checkpoints.restore(turn);
    repl.print(`Undid turn ${turn}:`);
    for (const file of restored) {
      const shown = relative(repl.worktree, file.path);
      repl.print(
        file.action === "restored"
          ? `  restored ${shown}`
          : `  removed ${shown} (the turn created it)`,
        repl.styles.green,
        "    ",
      );
    }
    repl.print(
      "The conversation is unchanged: tell the model if it should know the files went back",
      repl.styles.dim,
    );
  },
};

/** `/diff`. */
export const diffCommand: SlashCommand = {
  name: "diff",
  usage: "/diff",
  summary: "Show what this session's file tools changed",
  async run(repl) {
    const files = await repl.session.checkpoints.changedFiles();
    if (files.length === 0) {
      repl.print("No changes: the session's file tools changed no file", repl.styles.dim);
      return;
    }
    const { createTwoFilesPatch } = await import("diff");
    for (const file of files) {
      const shown = relative(repl.worktree, file.path);
      const patch = createTwoFilesPatch(
        file.before === null ? "/dev/null" : `a/${shown}`,
        file.after === null ? "/dev/null" : `b/${shown}`,
        file.before ?? "",
        file.after ?? "",
      ).split("\n").slice(1).filter((line) => !line.startsWith("\\ No newline"));
      printPatch(repl, patch);
    }
  },
};

function printPatch(repl: ReplContext, lines: string[]): void {
  const s = repl.styles;
  for (const line of lines.slice(0, MAX_DIFF_LINES)) {
    const style = line.startsWith("+++") || line.startsWith("---")
      ? s.bold
      : line.startsWith("+")
      ? s.green
      : line.startsWith("-")
      ? s.red
      : line.startsWith("@@")
      ? s.cyan
      : (text: string) => text;
    repl.print(line, style, "");
  }
  if (lines.length > MAX_DIFF_LINES) {
    repl.print(`… ${lines.length - MAX_DIFF_LINES} more lines`, s.dim);
  }
}
