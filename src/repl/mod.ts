/**
 * The interactive REPL: line editor, slash commands and the loop that runs turns.
 * @module
 */
export { startRepl } from "./repl.ts";
export type { ReplHost, ReplTerminal } from "./repl_host.ts";
export { displayOf } from "./display_of.ts";
export { NoticeRelay } from "./notice_relay.ts";
export { COMMANDS } from "./commands.ts";
export type { ReplContext, SlashCommand } from "./context.ts";
export { askFolderTrust } from "./trust_prompt.ts";
