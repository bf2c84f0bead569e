/**
 * The slash-command table and its dispatch: every command is a row, and an unknown name gets
 * the nearest known one suggested.
 * @module
 */
import type { ReplContext, SlashCommand } from "./context.ts";
import { agentsCommand } from "./agents_command.ts";
import { helpCommand, toolsCommand } from "./help_commands.ts";
import { clearCommand, compactCommand, exitCommand, sessionCommand } from "./session_commands.ts";
import { configCommand, modeCommand, modelCommand } from "./setting_commands.ts";
import { outputCommand } from "./output_command.ts";
import { initCommand } from "./init_command.ts";
import { permissionsCommand } from "./permissions_command.ts";
import { nearestName, type SlashInput } from "./slash.ts";
import { toolCommand } from "./tool_command.ts";
import { diffCommand, undoCommand } from "./undo_commands.ts";

/** Every slash command, in /help order. */
export const COMMANDS: readonly SlashCommand[] = [
  helpCommand,
  toolCommand,
  toolsCommand,
  agentsCommand,
  modeCommand,
  modelCommand,
  configCommand,
  permissionsCommand,
  sessionCommand,
  undoCommand,
  diffCommand,
  initCommand,
  compactCommand,
  outputCommand,
  clearCommand,
  exitCommand,
];

/** Runs a parsed command, or says which one was probably meant. */
export async function runCommand(repl: ReplContext, input: SlashInput): Promise<void> {
  const command = repl.commands.find((c) => c.name === input.name);
  if (command) return await command.run(repl, input.args);
  const near = nearestName(input.name, repl.commands.map((c) => c.name));
  repl.printError(
    `Unknown command "/${input.name}": ${
      near ? `did you mean /${near}?` : "run /help for the list"
    }`,
  );
}
