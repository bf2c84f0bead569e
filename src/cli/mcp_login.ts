/**
 * `replio mcp login NAME` and `replio mcp logout NAME`: the OAuth login of a remote server of
 * `mcp_servers` (docs/mcp.md, "Remote servers (HTTP) and login"). Login sends the person to the
 * authorization URL (a browser, or the URL printed with `--no-browser` or without a display) and
 * takes the code on a loopback redirect; logout forgets the stored tokens. Every other command
 * only uses (and renews) a stored login, and names `replio mcp login NAME` when there is none.
 * @module
 */
import { type Config, loadConfig } from "../config/mod.ts";
import { forgetMcpLogins, loginToMcpServer } from "../mcp/mod.ts";
import { VERSION } from "../version.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of `replio mcp login`. */
export interface McpLoginCommandOptions {
  /** False with `--no-browser`: print the URL, open nothing. */
  browser?: boolean;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/**
 * Logs in and stores the tokens: exit 0, or 0 with a note when the server wants no login; 2 for
 * a name that is no remote server of the config; 1 when the login fails; 130 on Ctrl-C.
 */
export async function runMcpLogin(name: string, options: McpLoginCommandOptions): Promise<number> {
  const config = await loadConfig({
    worktree: await resolveWorktree(options.path),
    trust: options.trust,
  });
  const entry = remoteEntry(name, config);
  const controller = new AbortController();
  const cancelOnSignal = handleSignals(["SIGINT"], () => controller.abort());
  try {
    const result = await loginToMcpServer({
      server: name,
      url: entry.url,
      headers: entry.headers ?? {},
      version: VERSION,
      signal: controller.signal,
      openAuthorization: (url, callback) =>
        sendToBrowser(name, url, callback, options.browser !== false),
    });
    if (result.status === "not_needed") {
      await writeErr(
        `replio: MCP server "${name}" answered without a login: nothing to do, its tools work as they are\n`,
      );
    } else {
      await writeOut(
        `Logged in to MCP server "${name}" (${result.tools} tools): replio renews the login ` +
          `by itself; \`replio mcp logout ${name}\` forgets it\n`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    if (controller.signal.aborted) {
      await writeErr(`replio: login to MCP server "${name}" cancelled (Ctrl-C)\n`);
      return EXIT.cancelled;
    }
    if (!(error instanceof Error)) throw error;
    await writeErr(`replio: Cannot log in to MCP server "${name}": ${error.message}\n`);
    return EXIT.failed;
  } finally {
    cancelOnSignal[Symbol.dispose]();
  }
}

/** Forgets every stored login of `name`: exit 0, whether there was one or not. */
export async function runMcpLogout(name: string): Promise<number> {
  const forgotten = await forgetMcpLogins(name);
  await (forgotten.length === 0
    ? writeErr(`replio: no login of MCP server "${name}" is stored: nothing to forget\n`)
    : writeOut(
      `Logged out of MCP server "${name}": forgot its login to ${forgotten.join(", ")}\n`,
    ));
  return EXIT.ok;
}

/** The `mcp_servers` entry `name` when it is a remote server that may log in; else exit 2. */
function remoteEntry(name: string, config: Config) {
  const servers = config.get("mcp_servers");
  const entry = servers[name];
  if (entry === undefined) {
    const ignored = config.trust.ignored?.values["mcp_servers"] as
      | Record<string, unknown>
      | undefined;
    if (ignored && name in ignored) {
      throw new UsageError(
        `Cannot log in to MCP server "${name}": it is configured in this folder's ` +
          `.replio/config.yaml, which loads only in a trusted folder: run replio trust, or pass --trust`,
      );
    }
    const names = Object.keys(servers);
    throw new UsageError(
      `Cannot log in to MCP server "${name}": mcp_servers has no entry "${name}"` +
        (names.length ? ` (it has ${names.map((n) => `"${n}"`).join(", ")})` : "") +
        `: add one with its url (docs/mcp.md)`,
    );
  }
  if (entry.url === undefined) {
    throw new UsageError(
      `Cannot log in to MCP server "${name}": it runs as a command on stdio, which needs no ` +
        `login: only servers with a url log in`,
    );
  }
  if (entry.bearer_token_env_var !== undefined) {
    throw new UsageError(
      `Cannot log in to MCP server "${name}": it uses the bearer token in ` +
        `${entry.bearer_token_env_var}: remove bearer_token_env_var from its entry to use OAuth instead`,
    );
  }
  return { ...entry, url: entry.url };
}

/**
 * Prints the authorization URL and, unless told not to (or there is no display to show a
 * browser on), opens it in the browser; either way the URL is there to open by hand.
 */
async function sendToBrowser(
  name: string,
  url: URL,
  callback: string,
  wantsBrowser: boolean,
): Promise<void> {
  const opened = wantsBrowser && await openBrowser(url);
  await writeErr(
    (opened
      ? `replio: opened your browser to log in to MCP server "${name}"; if it did not, open:\n`
      : `replio: open this URL in a browser to log in to MCP server "${name}":\n`) +
      `${url.href}\n` +
      `replio: waiting for the browser to come back to ${callback} (Ctrl-C to cancel)\n`,
  );
}

/** Opens `url` with the system's opener; false when there is none or no display to use. */
async function openBrowser(url: URL): Promise<boolean> {
  const isMac = Deno.build.os === "darwin";
  const env = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
      ? Deno.env.get(name)
      : undefined;
  // Over ssh, or in a container, there is no screen a browser could open on.
  if (!isMac && !env("DISPLAY") && !env("WAYLAND_DISPLAY")) return false;
  try {
    const child = new Deno.Command(isMac ? "open" : "xdg-open", {
      args: [url.href],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    return (await child.status).success;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return false;
    }
    throw error;
  }
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
