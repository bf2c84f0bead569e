/**
 * The command line (DESIGN.md §4): parses arguments with commander and runs one subcommand.
 * Subcommand modules load lazily so `--version` and `tool` stay fast.
 * @module
 */
import { VERSION } from "../version.ts";
import { EXIT, UsageError } from "./errors.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import type { RunOptions } from "./run.ts";

/** Runs replio with `argv` and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
    await writeOut(`replio ${VERSION}\n`);
    return EXIT.ok;
  }
  if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
    // The stored text commander would print: no need to load commander and build every command.
    const { ROOT_HELP } = await import("./root_help.ts");
    await writeOut(ROOT_HELP);
    return EXIT.ok;
  }
  try {
    const { guardNodeEnv } = await import("./guard_node_env.ts");
    await guardNodeEnv();
    catchStrayAccessErrors();
    if (argv[0] === "run") {
      // The common headless command lines skip commander (run_options.ts); the rest, help and
      // mistakes included, go through it below.
      const { parseRunArgv } = await import("./run_options.ts");
      const parsed = parseRunArgv(argv.slice(1));
      if (parsed) {
        const { runHeadless } = await import("./run.ts");
        // The table's types: output has a default and a choice, max-rounds is parsed.
        return await runHeadless(parsed.prompt.join(" "), parsed.options as unknown as RunOptions);
      }
    }
    const { buildProgram } = await import("./program.ts");
    let exitCode: number = EXIT.ok;
    const program = buildProgram((code) => exitCode = code);
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    return await reportError(error);
  }
}

/** Maps a thrown error to a message on stderr and an exit code; one place for all commands. */
async function reportError(error: unknown): Promise<number> {
  const name = error instanceof Error ? error.name : "";
  if (name === "CommanderError") {
    const { code = "", exitCode = 1 } = error as { code?: string; exitCode?: number };
    // help and version were printed by commander; anything else is a usage error, help shown
    // for a mistake (`replio help nosuch`) included.
    if (code === "commander.helpDisplayed" || code === "commander.version") return EXIT.ok;
    if (code === "commander.help" && exitCode === 0) return EXIT.ok;
    return EXIT.usage;
  }
  if (error instanceof UsageError || name === "ConfigError") {
    await writeErr(`replio: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (isAccessError(error)) {
    // A missing Deno grant or a read-only file system is the user's setup, not replio's bug:
    // one line that names the fix, no stack.
    await writeErr(`replio: ${describeAccessError(error)}\n`);
    return EXIT.failed;
  }
  await writeErr(
    `replio: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`,
  );
  return EXIT.failed;
}

/**
 * An access error thrown where no caller awaits it (a background write, a timer) would end
 * the process with Deno's stack trace; it ends it with the same one line as any other.
 */
function catchStrayAccessErrors(): void {
  const handle = (event: Event, error: unknown) => {
    if (!isAccessError(error)) return;
    event.preventDefault();
    Deno.stderr.writeSync(new TextEncoder().encode(`replio: ${describeAccessError(error)}\n`));
    Deno.exit(EXIT.failed);
  };
  globalThis.addEventListener("unhandledrejection", (event) => handle(event, event.reason));
  globalThis.addEventListener("error", (event) => handle(event, event.error));
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
