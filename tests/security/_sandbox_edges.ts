/**
 * Shared by the sandbox-edge security tests (issue 22): a trap whose marker only code run outside
 * the sandbox writes, replio's run_command as the red team ran it, the user's own git, daemons on
 * unix sockets, and folders outside /tmp (the sandbox's /tmp is private, which would prove nothing).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runReplio } from "../support/replio_process.ts";
import type { TempWorktree } from "../support/worktree.ts";

/** The global config that turns the sandbox off: every control's setting. */
export const OFF = 'sandbox:\n  mode: "off"\n';

/** A folder outside the worktree for the marker that code run outside the sandbox writes. */
export interface Trap extends AsyncDisposable {
  marker: string;
  /** Shell that makes `hook.sh` in the current folder: a hook that appends to the marker. */
  plantHook: string;
  /** Marker lines so far; [] when nothing ran. */
  ran(): Promise<string[]>;
}

/** A fresh trap in its own folder, removed on dispose. */
export async function trap(): Promise<Trap> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_edges_trap_" }));
  const marker = join(dir, "ran");
  return {
    marker,
    plantHook: `printf '#!/bin/sh\\necho ran >> ${marker}\\n' > hook.sh && chmod +x hook.sh`,
    async ran() {
      try {
        return (await Deno.readTextFile(marker)).trim().split("\n");
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) return [];
        throw error;
      }
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** `replio tool run_command` as the red team ran it: headless, `--yes`. */
export async function runCommand(
  wt: TempWorktree,
  command: string,
  env: Record<string, string> = {},
): Promise<string> {
  const run = await runReplio(
    ["tool", "run_command", JSON.stringify({ command }), "--yes", "--json"],
    { cwd: wt.path, env },
  );
  assert.ok(run.stdout !== "", `replio tool printed nothing: ${run.stderr}`);
  return JSON.parse(run.stdout).output;
}

/** The user's next git command, outside replio. */
export async function userGit(cwd: string, ...args: string[]): Promise<void> {
  await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "null" }).output();
}

/** Git as the test sets a repository up; fails the test when git fails. */
export async function git(cwd: string, ...args: string[]): Promise<void> {
  const run = await new Deno.Command("git", { args, cwd, stderr: "piped" }).output();
  assert.ok(run.success, `git ${args.join(" ")}: ${new TextDecoder().decode(run.stderr)}`);
}

/** A daemon on a unix socket at `path`: each connection that sends a line appends to `marker`. */
export function startDaemon(path: string, marker: string): AsyncDisposable {
  const listener = Deno.listen({ transport: "unix", path });
  const serving = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(64);
      await conn.read(buffer);
      await Deno.writeTextFile(marker, "ran\n", { append: true });
      conn.close();
    }
  })();
  return {
    async [Symbol.asyncDispose]() {
      listener.close();
      await serving.catch(() => {});
      await Deno.remove(path).catch(() => {});
    },
  };
}

/** A command that connects to the socket and asks the daemon to act (Deno as the client). */
export function connectTo(socket: string): string {
  const client = `const c = await Deno.connect({ transport: "unix", path: "${socket}" }); ` +
    `await c.write(new TextEncoder().encode("run\\n")); c.close();`;
  return `DENO_DIR="$PWD/.deno_dir" "${Deno.execPath()}" eval '${client}'`;
}

/** A folder outside /tmp (the sandbox's /tmp is private already, so it would prove nothing). */
export async function outsideTmp(prefix: string): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Deno's cache where it is now, so a child with another HOME does not download again. */
export function pinnedDenoDir(): Record<string, string> {
  const home = Deno.env.get("HOME") ?? "/root";
  const cache = Deno.env.get("XDG_CACHE_HOME") || join(home, ".cache");
  return { DENO_DIR: Deno.env.get("DENO_DIR") ?? join(cache, "deno") };
}
