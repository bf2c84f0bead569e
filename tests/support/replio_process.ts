/**
 * Runs replio as a user does: a child `deno run main.ts …` in a worktree, with a private global
 * config folder and a clean environment, so the machine's own settings and keys never leak in.
 * @module
 */
import { join } from "node:path";

/** The entry point under test. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Options for {@link replioCommand} and {@link runReplio}. */
export interface ReplioProcessOptions {
  /** The worktree (the child's working directory). */
  cwd: string;
  /** Extra environment; the base is HOME (Deno's module cache lives there) and PATH. */
  env?: Record<string, string>;
  /** Deno flags before the entry point; default `-A`. */
  denoFlags?: string[];
  /** Text written to stdin, which is otherwise closed. */
  stdin?: string;
}

/** What a finished run printed. */
export interface ReplioOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The whole environment a replio child gets: HOME (Deno's module cache) and PATH from this
 * process, a private global config folder `<cwd>/.xdg`, no colour, no backtraces, no update check.
 */
export function childEnv(cwd: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HOME: Deno.env.get("HOME") ?? "",
    PATH: Deno.env.get("PATH") ?? "",
    XDG_CONFIG_HOME: join(cwd, ".xdg"),
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    DENO_NO_UPDATE_CHECK: "1",
    ...extra,
  };
}

/** The command for `replio ...args`; global config lives in `<cwd>/.xdg` unless `env` says. */
export function replioCommand(args: string[], options: ReplioProcessOptions): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...(options.denoFlags ?? ["-A"]), MAIN, ...args],
    cwd: options.cwd,
    clearEnv: true,
    env: childEnv(options.cwd, options.env),
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

/** Runs `replio ...args` to the end and returns its exit code and output. */
export async function runReplio(
  args: string[],
  options: ReplioProcessOptions,
): Promise<ReplioOutput> {
  const child = replioCommand(args, options).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const { code, stdout, stderr } = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, stdout: decode(stdout), stderr: decode(stderr) };
}
