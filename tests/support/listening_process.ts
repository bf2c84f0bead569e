/**
 * A replio server started as a user starts it (`serve`, `mcp --http`): spawned, read up to its
 * first stdout line (`listening http://…`), and stopped once with everything it wrote kept.
 * @module
 */
import { withDeadline } from "./deadline.ts";

/** What a stopped server exited with and wrote. */
export interface Ended {
  code: number;
  stdout: string;
  stderr: string;
}

/** A running server and its first stdout line. */
export interface ListeningProcess {
  /** The first stdout line (empty when it exited before writing one). */
  firstLine: string;
  /** Sends `signal` once and resolves with the exit code and everything written. */
  stop(signal?: Deno.Signal): Promise<Ended>;
}

/** Spawns `command` (stdout and stderr piped) and waits for its first line; `what` names it. */
export async function spawnListening(
  command: Deno.Command,
  what: string,
): Promise<ListeningProcess> {
  const child = command.spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await withDeadline(lines.read(), `the first line of ${what}`, {
      onLate: () => child.kill("SIGKILL"),
    });
    if (done) break;
    stdout += value;
  }
  const firstLine = stdout.split("\n")[0]!;
  let stopped: Promise<Ended> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch (error) {
        // It already exited (a failed start): report what it said.
        if (!(error instanceof TypeError)) throw error;
      }
      const { code } = await withDeadline(child.status, `${what} to exit`);
      for (let read = await lines.read(); !read.done; read = await lines.read()) {
        stdout += read.value;
      }
      return { code, stdout, stderr: await stderr };
    })();
  return { firstLine, stop };
}
