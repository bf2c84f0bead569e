/**
 * `replio completions bash|zsh|fish`: Tab completion generated from the commander program that
 * `--help` prints, so a new subcommand or option completes without touching this file. The
 * program is walked into a table (this file); completion_scripts.ts writes it in each shell's
 * language.
 * @module
 */
import type { Command, Option } from "commander";
import { renderBash, renderFish, renderZsh } from "./completion_scripts.ts";
import { EXIT, UsageError } from "./errors.ts";

/** What the word after an option, or a positional argument, completes to. */
export type ValueKind =
  | { kind: "choices"; choices: readonly string[] }
  | { kind: "dir" }
  | { kind: "file" }
  /** Anything (a model name, a session id): nothing is offered. */
  | { kind: "free" };

/** One option of a command, as completion offers it. */
export interface CompletionOption {
  /** Every spelling: `-c`, `--continue`. */
  flags: string[];
  description: string;
  /** What its value completes to; null for a flag that takes none. */
  value: ValueKind | null;
}

/** One command of the table: the root (path `[]`) or a subcommand at any depth. */
export interface CompletionNode {
  /** The names from the root down (`["sessions", "list"]`); the root's is empty. */
  path: string[];
  /** Its name first, then its aliases (`permissions`, `doctor`). */
  names: string[];
  description: string;
  options: CompletionOption[];
  subcommands: CompletionNode[];
  /** What the first positional argument completes to; null when it takes none. */
  argument: ValueKind | null;
}

/** The shells `replio completions` writes for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** Prints `shell`'s completion script for `program` on stdout; exit 0. */
export async function printCompletions(shell: string, program: Command): Promise<number> {
  const table = completionTable(program);
  const render = { bash: renderBash, zsh: renderZsh, fish: renderFish }[shell];
  // commander checks the choice; this guards a caller that skips it.
  if (!render) {
    throw new UsageError(
      `Cannot write completions for "${shell}": use one of ${SHELLS.join(", ")}`,
    );
  }
  await Deno.stdout.write(new TextEncoder().encode(render(table)));
  return EXIT.ok;
}

/**
 * The table of `command` and everything below it, as `--help` shows them; `siblings` are the
 * names an argument called `command` (`replio help <command>`) completes to.
 */
export function completionTable(
  command: Command,
  path: string[] = [],
  siblings: readonly string[] = [],
): CompletionNode {
  const help = command.createHelp();
  const argument = help.visibleArguments(command)[0];
  const subcommands = help.visibleCommands(command);
  const names = subcommands.map((sub) => sub.name());
  return {
    path,
    names: [command.name(), ...command.aliases()],
    description: firstLine(command.description()),
    options: help.visibleOptions(command).map((option) => ({
      flags: [option.short, option.long].filter((flag): flag is string => !!flag),
      description: firstLine(option.description),
      value: option.required || option.optional ? optionValue(option) : null,
    })),
    subcommands: subcommands.map((sub) =>
      completionTable(sub, [...path, sub.name()], names.filter((name) => name !== sub.name()))
    ),
    argument: argument === undefined
      ? null
      : argument.name() === "command"
      ? { kind: "choices", choices: siblings }
      : valueKind(argument.name(), argument.argChoices),
  };
}

/** Every node of `table`, the root first, depth first. */
export function allNodes(table: CompletionNode): CompletionNode[] {
  return [table, ...table.subcommands.flatMap(allNodes)];
}

function optionValue(option: Option): ValueKind {
  // `--path <dir>`: the placeholder says what the value is.
  const placeholder = /[<[]([\w-]+)/.exec(option.flags)?.[1] ?? "";
  return valueKind(placeholder, option.argChoices);
}

/** `path`/`dir` complete folders, `file` files, a choice list its choices. */
function valueKind(name: string, choices: readonly string[] | undefined): ValueKind {
  if (choices?.length) return { kind: "choices", choices };
  if (name === "dir" || name === "path") return { kind: "dir" };
  if (name === "file") return { kind: "file" };
  return { kind: "free" };
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}
