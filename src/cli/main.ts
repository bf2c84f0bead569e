/**
 * The command line (DESIGN.md §4): parses arguments with commander and runs one subcommand.
 * Subcommand modules load lazily so `--version` and `tool` stay fast.
 * @module
 */
import { VERSION } from "../version.ts";
import { EXIT } from "./errors.ts";
import { catchStrayErrors, describeError, isDebug } from "./report_error.ts";
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
    catchStrayErrors();
    const { exitOnSignals } = await import("./exit_signals.ts");
    exitOnSignals();
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

/** Prints the boundary's report of `error` (report_error.ts) and returns its exit code. */
async function reportError(error: unknown): Promise<number> {
  const { text, code } = describeError(error, { debug: isDebug() });
  if (text) await writeErr(text);
  return code;
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
