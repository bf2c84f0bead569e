/**
 * `replio mcp` spoken to line by line, for what a client library never sends: text that is not
 * JSON, messages that are not JSON-RPC, batches. Every read waits for the message itself, with a
 * deadline only a hang reaches that names what was awaited.
 * @module
 */
import { withDeadline } from "./deadline.ts";
import { replioCommand } from "./replio_process.ts";

/** What `replio mcp` wrote: one JSON value per line (an array answers a batch). */
// deno-lint-ignore no-explicit-any
export type McpLine = any;

/** A running `replio mcp`; disposing it closes stdin and waits for the exit. */
export interface McpLines extends AsyncDisposable {
  /** Writes `text` and a newline as they are: a message, a batch, or anything else. */
  sendLine(text: string): Promise<void>;
  /** Writes `message` as one line, with `"jsonrpc": "2.0"` added. */
  send(message: Record<string, unknown>): Promise<void>;
  /** The next line's value, whatever it is; `what` names it if it never comes. */
  next(what: string): Promise<McpLine>;
  /** Sends `initialize` for `protocolVersion` and `notifications/initialized`; the result. */
  initialize(protocolVersion: string): Promise<McpLine>;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number>;
}

const encoder = new TextEncoder();

/** Starts `replio mcp ...args` in `cwd` with `env`. */
export function startMcpLines(
  cwd: string,
  env: Record<string, string>,
  args: string[] = [],
): McpLines {
  const child = replioCommand(["mcp", ...args], { cwd, env, stdin: "" }).spawn();
  const stderr = new Response(child.stderr).text();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let closed: Promise<number> | null = null;
  const next = async (what: string): Promise<McpLine> => {
    let end: number;
    while ((end = buffer.indexOf("\n")) === -1) {
      const read = await withDeadline(reader.read(), what);
      if (read.done) {
        throw new Error(`replio mcp ended before ${what}; its stderr: ${await stderr}`);
      }
      buffer += read.value;
    }
    const line = buffer.slice(0, end);
    buffer = buffer.slice(end + 1);
    return JSON.parse(line);
  };
  const sendLine = (text: string) => writer.write(encoder.encode(text + "\n"));
  const send = (message: Record<string, unknown>) =>
    sendLine(JSON.stringify({ jsonrpc: "2.0", ...message }));
  const close = () =>
    closed ??= (async () => {
      await writer.close().catch(() => {});
      const { code } = await withDeadline(child.status, "replio mcp to exit after stdin closed");
      await reader.cancel();
      await stderr;
      return code;
    })();
  return {
    sendLine,
    send,
    next,
    async initialize(protocolVersion) {
      await send({
        id: "init",
        method: "initialize",
        params: { protocolVersion, capabilities: {}, clientInfo: { name: "lines", version: "1" } },
      });
      const answer = await next(`the answer to initialize (${protocolVersion})`);
      await send({ method: "notifications/initialized" });
      return answer;
    },
    close,
    async [Symbol.asyncDispose]() {
      await close();
    },
  };
}
