/**
 * `replio mcp --http` as a user runs it, for the MCP HTTP server tests: a child process on a free
 * port, and the official SDK client (`StreamableHTTPClientTransport`) connected to it.
 * @module
 */
import { Client } from "../../src/mcp/_sdk.ts";
import { StreamableHTTPClientTransport } from "../../src/mcp/_sdk_http.ts";
import { withDeadline } from "./deadline.ts";
import { replioCommand } from "./replio_process.ts";

/** A running `replio mcp --http`; disposing it sends SIGTERM and waits for the exit. */
export interface McpHttpReplio extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/mcp`, as its first stdout line names it. */
  url: string;
  /** Sends `signal` once and resolves with the exit code and everything written. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts `replio mcp --http --port 0 ...args` in `cwd` (its own global config folder) and waits
 * for its `listening` line; throws with what it printed when it does not start.
 */
export async function startMcpHttp(
  cwd: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<McpHttpReplio> {
  const child = replioCommand(["mcp", "--http", "--port", "0", ...args], { cwd, env }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  while (!stdout.includes("\n")) {
    const { value, done } = await withDeadline(lines.read(), "the listening line of replio mcp", {
      onLate: () => child.kill("SIGKILL"),
    });
    if (done) break;
    stdout += value;
  }
  let stopped: ReturnType<McpHttpReplio["stop"]> | null = null;
  const stop = (signal: Deno.Signal = "SIGTERM") =>
    stopped ??= (async () => {
      try {
        child.kill(signal);
      } catch (error) {
        // It already exited (a failed start): report what it said.
        if (!(error instanceof TypeError)) throw error;
      }
      const { code } = await withDeadline(child.status, "replio mcp --http to exit");
      for (let read = await lines.read(); !read.done; read = await lines.read()) {
        stdout += read.value;
      }
      return { code, stdout, stderr: await stderr };
    })();
  const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(stdout.split("\n")[0]!);
  if (!match) throw new Error(`replio mcp --http did not start: ${JSON.stringify(await stop())}`);
  return { url: match[1]!, stop, [Symbol.asyncDispose]: async () => void await stop() };
}

/** The SDK client connected to `url`, its transport as `http`; disposing it closes the client. */
export async function httpClient(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client & AsyncDisposable & { http: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return Object.assign(client, {
    http: transport,
    [Symbol.asyncDispose]: () => client.close(),
  });
}
