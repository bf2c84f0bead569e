/**
 * What grep's and glob's ripgrep engines share: whether `rg` may run, the flags that make it
 * choose files exactly as the built-in walk (_walk.ts) does, reading its output, and the
 * modification time taken while it runs.
 * @module
 */
import { isMissing } from "./_path_errors.ts";
import { SKIPPED_DIRS } from "./_walk.ts";
import { nameTypeArgs } from "./_name_globs.ts";

/** Bytes of output read at a time. */
const READ_BYTES = 1 << 20;

/**
 * Why ripgrep could not run a search, and the built-in engine takes it over: `rg` is not
 * there or may not be run, or it refused the pattern (look-around, backreferences) or its
 * flags (an old `rg`).
 */
export type RipgrepUnavailable = "missing" | "unsupported";

/** Whether Deno lets this process run `rg` (asking never prompts). */
export function mayRunRipgrep(): boolean {
  return Deno.permissions.querySync({ name: "run", command: "rg" }).state === "granted";
}

/**
 * Flags that make ripgrep pick the files the built-in walk picks: hidden files included,
 * `.gitignore` honoured outside git repositories too, no global gitignore or config file, and
 * {@link SKIPPED_DIRS} skipped; with a glob `pattern`, narrowed to names it could match
 * ({@link nameTypeArgs}): ripgrep may still list files the pattern does not match, never fewer,
 * so the caller matches each path itself.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const args = ripgrepFilterArgs("*.ts");
 * assert.deepEqual(args.slice(0, 6), [
 *   "--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--glob", "!.git/",
 * ]);
 * assert.deepEqual(args.slice(-2), ["--type", "replioglob"]);
 * ```
 */
export function ripgrepFilterArgs(pattern?: string): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global"];
  for (const dir of SKIPPED_DIRS) args.push("--glob", `!${dir}/`);
  if (pattern !== undefined) args.push(...nameTypeArgs(pattern));
  return args;
}

/** A path ripgrep printed for the path `.` (`./a/b.ts`), relative to its working directory. */
export function listedPath(printed: string): string {
  return printed.startsWith("./") ? printed.slice(2) : printed;
}

/**
 * A child's output as text, as it comes. A reader with a large buffer of its own takes what the
 * pipe holds in few reads; the default one hands over many small chunks, each costly in the
 * stream machinery. The output ends quietly where the child was killed: what came before stands.
 */
export async function* readOutput(stdout: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const reader = stdout.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(READ_BYTES);
  let isDone = false;
  try {
    while (true) {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) break;
      yield decoder.decode(value, { stream: true });
      buffer = value.buffer as ArrayBuffer;
    }
    isDone = true;
  } catch (error) {
    // The stream errors when the process is killed at the deadline.
    if (
      !(error instanceof Deno.errors.Interrupted) && !(error instanceof Deno.errors.BadResource)
    ) {
      throw error;
    }
    isDone = true;
  } finally {
    // A reader that stopped early would leave the pipe open, and the child writing to it.
    if (!isDone) await reader.cancel();
  }
}

/**
 * A file's modification time, read while ripgrep is still searching so that the sort after it
 * has nothing left to stat; null when the file is gone (the sort then drops it).
 */
export function mtimeOf(path: string): number | null {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * Starts `rg` with `args` in `cwd`, its output piped and ended by `signal`; "missing" when there is
 * no `rg` to start.
 */
export function spawnRipgrep(
  args: string[],
  cwd: string,
  signal: AbortSignal,
): Deno.ChildProcess | "missing" {
  try {
    return new Deno.Command("rg", {
      args,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "missing";
    throw error;
  }
}
