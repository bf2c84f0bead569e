/**
 * The display keys of the config as the terminal renderer takes them.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { TerminalDisplay } from "../ui/terminal.ts";

/** The display keys of the config, as the terminal renderer takes them. */
export function displayOf(config: Config): TerminalDisplay {
  return {
    toolStatusVisible: config.get("tool_status_visible"),
    glyphLines: config.get("glyph_lines"),
    glyphParams: config.get("glyph_params"),
    showErrors: config.get("show_errors"),
    showNotes: config.get("show_notes"),
    showThinking: config.get("show_thinking"),
  };
}
