/**
 * The commands about replio's own command line: `replio help [command…]`, `replio completions
 * <shell>`, and the error for an unknown subcommand of a group (`replio sessions lst`), which
 * names the word and the nearest subcommand as the root does.
 * @module
 */
import { Argument, type Command } from "commander";
import { subcommandNames, unknownCommandError } from "./command_typo.ts";

/** Adds `help` and `completions` to `program`, and unknown-subcommand errors to every group. */
export function addMetaCommands(program: Command, setExitCode: (code: number) => void): void {
  program.command("completions")
    .description("print a shell's Tab completion for replio (bash, zsh or fish)")
    .addArgument(new Argument("<shell>", "the shell").choices(["bash", "zsh", "fish"]))
    .addHelpText(
      "after",
      `
Examples:
  source <(replio completions bash)        this bash session (add it to ~/.bashrc)
  replio completions zsh > "\${fpath[1]}/_replio"     zsh, from the next shell on
  replio completions fish > ~/.config/fish/completions/replio.fish`,
    )
    .exitOverride()
    .action(async (shell: string) => {
      const { printCompletions } = await import("./completions.ts");
      setExitCode(await printCompletions(shell, program));
    });

  // The root runs the REPL, so commander would not add `help` itself: `replio help run` is
  // `replio run --help`, as git and npm have it. An unknown name is an error naming it.
  program.command("help")
    .description("show help for a command")
    .argument("[command...]", "the command, e.g. sessions list")
    .exitOverride()
    .action((words: string[]) => {
      findCommand(program, words).outputHelp();
    });

  // `replio sessions lst` names the word and the nearest subcommand, as the root does.
  for (const group of allCommands(program)) {
    if (!group.commands.length) continue;
    group.on("command:*", (operands: string[]) => {
      throw unknownCommandError(operands[0] ?? "", commandPath(group), subcommandNames(group));
    });
  }
}

/** The command `words` name below `root` (`["sessions", "list"]`); throws for an unknown one. */
function findCommand(root: Command, words: readonly string[]): Command {
  let command = root;
  for (const [i, word] of words.entries()) {
    const next = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) throw unknownCommandError(word, words.slice(0, i), subcommandNames(command));
    command = next;
  }
  return command;
}

/** Every command below `command`, depth first. */
function allCommands(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...allCommands(c)]);
}

/** The names from the root down to `command`, the root's own left out. */
function commandPath(command: Command): string[] {
  return command.parent ? [...commandPath(command.parent), command.name()] : [];
}
