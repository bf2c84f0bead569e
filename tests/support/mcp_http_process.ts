/**
 * Runs tests/support/mcp_http_server.ts as a child process and reads it back: its URL, the
 * requests it received, and its test-only controls (expire every token, shorten the lifetime
 * later tokens report). And `replio mcp login` driven as a person would in a browser: the test
 * follows the printed authorization URL with fetch, and the demo authorization server approves.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withDeadline } from "./deadline.ts";
import type { LoggedRequest } from "./mcp_http_server.ts";
import { replioCommand, type ReplioOutput, runReplio } from "./replio_process.ts";
import { tempWorktree } from "./worktree.ts";

export type { LoggedRequest } from "./mcp_http_server.ts";

const SERVER = new URL("./mcp_http_server.ts", import.meta.url).pathname;

/** A running test server. */
export interface HttpServerProcess extends AsyncDisposable {
  /** Its MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every request it received so far, test routes left out. */
  log(): Promise<LoggedRequest[]>;
  /** Makes every access token it issued invalid, as expired ones are. */
  expireTokens(): Promise<void>;
  /** Makes later tokens report a lifetime of `seconds` (they stay valid an hour). */
  setTokenLifetime(seconds: number): Promise<void>;
  /** Forgets every session, as a restarted server has. */
  forgetSessions(): Promise<void>;
}

/** Starts the server with `args` (see mcp_http_server.ts) and `env`; resolves once it listens. */
export async function startHttpServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<HttpServerProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", SERVER, ...args],
    env: { DENO_NO_UPDATE_CHECK: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const firstLine = async () => {
    while (!text.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`the MCP test server ended before listening: ${text}`);
      text += value;
    }
    return text.slice(0, text.indexOf("\n"));
  };
  const { url } = JSON.parse(
    await withDeadline(firstLine(), `the MCP test server (${args.join(" ")}) to listen`, {
      onLate: () => child.kill(),
    }),
  ) as { url: string };
  // Nothing more is printed; the stream is released so the process can be awaited.
  await lines.cancel();
  const origin = new URL(url).origin;
  const post = async (path: string) => {
    const response = await fetch(`${origin}${path}`, { method: "POST" });
    if (!response.ok) throw new Error(`POST ${path}: HTTP ${response.status}`);
    await response.body?.cancel();
  };
  return {
    url,
    log: async () => await (await fetch(`${origin}/test/log`)).json() as LoggedRequest[],
    expireTokens: () => post("/test/expire"),
    setTokenLifetime: (seconds) => post(`/test/lifetime?seconds=${seconds}`),
    forgetSessions: () => post("/test/forget"),
    async [Symbol.asyncDispose]() {
      child.kill();
      await child.status;
    },
  };
}

/** What a driven login printed, and the pages the "browser" saw. */
export interface DrivenLogin extends ReplioOutput {
  /** The authorization URL replio printed. */
  authorizationUrl: string;
  /** The status of the loopback page the browser came back to. */
  callbackStatus: number;
  /** With `forgeFirst`: the status of the forged redirect sent before the real one. */
  forgedStatus: number | null;
}

/**
 * Runs `replio mcp login NAME --no-browser` and plays the browser: reads the printed
 * authorization URL from stderr, follows it with fetch (the demo server approves at once and
 * redirects to replio's loopback listener), then waits for replio to exit. With `forgeFirst`,
 * another page first sends the loopback listener a code of its own, without the login's state.
 */
export async function driveLogin(
  cwd: string,
  name: string,
  env: Record<string, string>,
  options: { forgeFirst?: boolean } = {},
): Promise<DrivenLogin> {
  const child = replioCommand(["mcp", "login", name, "--no-browser"], { cwd, env }).spawn();
  const stdout = new Response(child.stdout).text();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  const urlLine = async () => {
    for (;;) {
      const found = stderr.split("\n").find((line) => line.startsWith("http"));
      if (found) return found;
      const { value, done } = await reader.read();
      if (done) return null;
      stderr += value;
    }
  };
  const authorizationUrl = await withDeadline(urlLine(), "replio mcp login to print the URL", {
    onLate: () => child.kill(),
  });
  let callbackStatus = 0;
  let forgedStatus: number | null = null;
  if (authorizationUrl !== null && options.forgeFirst) {
    const listener = new URL(new URL(authorizationUrl).searchParams.get("redirect_uri")!);
    listener.search = "?code=forged-code&state=not-this-login";
    const forged = await fetch(listener);
    await forged.body?.cancel();
    forgedStatus = forged.status;
  }
  if (authorizationUrl !== null) {
    const approval = await fetch(authorizationUrl, { redirect: "manual" });
    await approval.body?.cancel();
    const callback = approval.headers.get("location");
    if (callback === null) throw new Error(`no redirect from ${authorizationUrl}`);
    const page = await fetch(callback);
    await page.body?.cancel();
    callbackStatus = page.status;
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      stderr += value;
    }
  })();
  const { code } = await withDeadline(child.status, "replio mcp login to exit", {
    onLate: () => child.kill(),
  });
  await rest;
  return {
    code,
    stdout: await stdout,
    stderr,
    authorizationUrl: authorizationUrl ?? "",
    callbackStatus,
    forgedStatus,
  };
}

/** Every file under `dir`, with its text, for checking that a secret is in none of them. */
export async function filesUnder(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      for (const [file, text] of await filesUnder(path)) files.set(file, text);
    } else if (entry.isFile) {
      files.set(path, await Deno.readTextFile(path));
    }
  }
  return files;
}

/**
 * A worktree whose global config (`.xdg`) holds `servers` as mcp_servers and whose state folder
 * (`.state`, where logins are kept) is its own.
 */
export async function remoteWorktree(
  servers: Record<string, unknown>,
  project?: Record<string, unknown>,
) {
  const wt = await tempWorktree({
    ".xdg/replio/config.yaml": JSON.stringify({ mcp_servers: servers }),
    ...(project ? { ".replio/config.yaml": JSON.stringify({ mcp_servers: project }) } : {}),
  });
  const env = { XDG_STATE_HOME: join(wt.path, ".state") };
  return {
    path: wt.path,
    env,
    logins: join(wt.path, ".state", "replio", "mcp-logins"),
    local: join(wt.path, ".replio", "config.yaml"),
    replio: (args: string[], extra: Record<string, string> = {}) =>
      runReplio(args, { cwd: wt.path, env: { ...env, ...extra } }),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

/** No Deno stack trace ("    at file:///…") in what a person reads. */
export function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /^\s+at .*(file|ext):\/\//m, text);
}

/** The Authorization headers `server` received. */
export async function authorizations(server: HttpServerProcess): Promise<(string | null)[]> {
  return (await server.log()).map((r) => r.authorization);
}
