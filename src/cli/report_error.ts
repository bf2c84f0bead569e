/**
 * The process's error boundary (docs/errors.md): every error that reaches the top of a command
 * becomes text on stderr and an exit code here, and no error ends in a Deno stack trace. Known
 * errors (usage, configuration, access, a folder where a file belongs) are one line that says
 * what to do. Anything else is a bug in replio: one line naming the error and one asking for a
 * report, with the stack only when REPLIO_DEBUG=1 asks for it.
 * @module
 */
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { describeWrongKind, isWrongKind, pathInError } from "../fs/wrong_kind.ts";
import { EXIT, UsageError } from "./errors.ts";

/** The variable that adds the stack to an unexpected error's report. */
export const DEBUG_VARIABLE = "REPLIO_DEBUG";

/** Options for {@link describeError}. */
export interface DescribeOptions {
  /** Append the stack of an unexpected error (REPLIO_DEBUG=1). */
  debug: boolean;
}

/** What the boundary prints for an error and the exit code it returns. */
export interface ErrorReport {
  /** The lines for stderr, each starting with `replio: ` (the stack, under debug, follows). */
  text: string;
  code: number;
}

/**
 * The report for `error`; commander's own errors, which commander has printed already, get
 * their exit code and no text.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(describeError(new TypeError("x is not a function"), { debug: false }), {
 *   text: "replio: unexpected error: TypeError: x is not a function\n" +
 *     "replio: this is a bug in replio: please report it with the command you ran " +
 *     "(REPLIO_DEBUG=1 adds where it happened)\n",
 *   code: 1,
 * });
 * ```
 */
export function describeError(error: unknown, options: DescribeOptions): ErrorReport {
  const name = error instanceof Error ? error.name : "";
  if (name === "CommanderError") {
    const { code = "", exitCode = 1 } = error as { code?: string; exitCode?: number };
    // help and version were printed by commander; anything else is a usage error, help shown
    // for a mistake (`replio help nosuch`) included.
    const ok = code === "commander.helpDisplayed" || code === "commander.version" ||
      (code === "commander.help" && exitCode === 0);
    return { text: "", code: ok ? EXIT.ok : EXIT.usage };
  }
  if (error instanceof UsageError || name === "ConfigError") {
    return { text: `replio: ${(error as Error).message}\n`, code: EXIT.usage };
  }
  if (isAccessError(error)) {
    // A missing Deno grant or a read-only file system is the user's setup, not replio's bug.
    return { text: `replio: ${describeAccessError(error)}\n`, code: EXIT.failed };
  }
  if (isWrongKind(error)) {
    const path = pathInError(error);
    const detail = path === null ? firstLine(error) : describeWrongKind(path);
    return { text: `replio: ${detail}\n`, code: EXIT.failed };
  }
  const what = error instanceof Error ? `${error.name}: ${firstLine(error)}` : String(error);
  const stack = options.debug && error instanceof Error && error.stack ? `${error.stack}\n` : "";
  return {
    text: `replio: unexpected error: ${what}\n` +
      "replio: this is a bug in replio: please report it with the command you ran " +
      `(${DEBUG_VARIABLE}=1 adds where it happened)\n${stack}`,
    code: EXIT.failed,
  };
}

/** Whether REPLIO_DEBUG=1 is set; an environment Deno does not grant reads as unset. */
export function isDebug(): boolean {
  const granted =
    Deno.permissions.querySync({ name: "env", variable: DEBUG_VARIABLE }).state === "granted";
  return granted && Deno.env.get(DEBUG_VARIABLE) === "1";
}

/**
 * An error thrown where no caller awaits it (a background write, a timer) would end the process
 * with Deno's stack trace; it ends it with the same report as any other, exit code included.
 */
export function catchStrayErrors(): void {
  const handle = (event: Event, error: unknown) => {
    // Handled by another listener (Node's compatibility layer takes some rejections of child
    // process pipes, a server that exited before its input was written): not fatal, not ours.
    if (event.defaultPrevented) return;
    event.preventDefault();
    const { text, code } = describeError(error, { debug: isDebug() });
    Deno.stderr.writeSync(new TextEncoder().encode(text));
    Deno.exit(code);
  };
  globalThis.addEventListener("unhandledrejection", (event) => handle(event, event.reason));
  globalThis.addEventListener("error", (event) => handle(event, event.error));
}

function firstLine(error: Error): string {
  return error.message.split("\n")[0] ?? "";
}
