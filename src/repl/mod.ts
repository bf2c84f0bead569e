/**
 * The interactive REPL: line editor, slash commands and the loop that runs turns.
 * @module
 */
export { displayOf, type ReplHost, type ReplTerminal, startRepl } from "./repl.ts";
export { COMMANDS } from "./commands.ts";
export type { ReplContext, SlashCommand } from "./context.ts";
export { askFolderTrust } from "./trust_prompt.ts";
