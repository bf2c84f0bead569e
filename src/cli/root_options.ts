/**
 * Root options a subcommand takes over: `replio --mode plan tools` is `replio tools --mode plan`.
 * @module
 */
import type { Command } from "commander";
import { UsageError } from "./errors.ts";

/** The root's options a subcommand may have too, by commander key and flag. */
const ROOT_OPTIONS = [
  { key: "mode", flag: "--mode" },
  { key: "path", flag: "--path" },
  { key: "model", flag: "--model" },
  { key: "baseUrl", flag: "--base-url" },
  { key: "session", flag: "--session" },
] as const;

/**
 * Hands root options down to the subcommand, so an unknown mode is checked (exit 2) rather than
 * dropped. A subcommand without the option is a usage error naming where it belongs.
 */
export function passRootOptions(root: Command, action: Command): void {
  if (action === root) return;
  for (const { key, flag } of ROOT_OPTIONS) {
    const value = root.getOptionValue(key) as string | undefined;
    if (value === undefined) continue;
    if (!action.options.some((option) => option.long === flag)) {
      throw new UsageError(
        `Cannot use ${flag} with "${action.name()}": it takes no ${flag}: ` +
          `run replio ${action.name()} --help for its options`,
      );
    }
    if (action.getOptionValue(key) === undefined) action.setOptionValue(key, value);
  }
}
