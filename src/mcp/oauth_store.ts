/**
 * Where `replio mcp login` keeps a remote MCP server's OAuth login: one JSON file per server
 * name and URL under `$XDG_STATE_HOME/replio/mcp-logins` (default
 * `~/.local/state/replio/mcp-logins`), the folder `0700` and each file `0600`. A login is found
 * by the name and the URL together, so an entry of the same name pointing elsewhere (a
 * project's, say) never finds the tokens another URL was given.
 * @module
 */
import { join } from "../fs/path.ts";
import { writeFileAtomic } from "../fs/write_file_atomic.ts";

/** One server's login as stored: what the authorization server registered and issued. */
export interface StoredLogin {
  /** The name in `mcp_servers`. */
  server: string;
  /** The server's URL, as configured. */
  url: string;
  /** The client registration (dynamic client registration's answer), kept as the SDK gave it. */
  client?: Record<string, unknown>;
  /** The tokens, kept as the SDK gave them (with the `issuer` it stamps on them). */
  tokens?: Record<string, unknown> & { access_token: string; refresh_token?: string | undefined };
  /** When the access token expires, in ms since the epoch; absent when no lifetime was given. */
  expiresAt?: number;
}

/** The folder of stored logins, or null when neither XDG_STATE_HOME nor HOME may be read. */
export function loginsDir(): string | null {
  const canRead = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
  const xdg = canRead("XDG_STATE_HOME") ? Deno.env.get("XDG_STATE_HOME") : undefined;
  if (xdg) return join(xdg, "replio", "mcp-logins");
  const home = canRead("HOME") ? Deno.env.get("HOME") : undefined;
  return home ? join(home, ".local", "state", "replio", "mcp-logins") : null;
}

/**
 * The file name of one server's login: its name made file-safe, and a hash of name and URL, so
 * two URLs under one name never share a file.
 */
export async function loginFileName(server: string, url: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${server}\n${url}`),
  );
  const hash = Array.from(
    new Uint8Array(digest).slice(0, 8),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return `${fileSafe(server)}-${hash}.json`;
}

/** A server name as part of a file name: characters other than letters, digits, `_`, `-` as `_`. */
function fileSafe(server: string): string {
  return server.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/** The stored login of `server` at `url`, or null when there is none. */
export async function readLogin(server: string, url: string): Promise<StoredLogin | null> {
  const dir = loginsDir();
  if (dir === null) return null;
  const file = join(dir, await loginFileName(server, url));
  if (Deno.permissions.querySync({ name: "read", path: file }).state !== "granted") return null;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  let login: StoredLogin;
  try {
    login = JSON.parse(text);
  } catch {
    // A damaged file holds nothing usable: the next login writes a whole one.
    return null;
  }
  // The name and URL inside must match too: the file name's hash is short.
  return login.server === server && login.url === url ? login : null;
}

/** Stores a login (replacing the one before), the folder `0700` and the file `0600`. */
export async function writeLogin(login: StoredLogin): Promise<void> {
  const dir = loginsDir();
  if (dir === null) {
    throw new Error(
      "Cannot store the MCP login: neither XDG_STATE_HOME nor HOME can be read: " +
        "run replio with --allow-env",
    );
  }
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder made earlier (or by hand) with wider modes is narrowed: tokens are inside.
  await Deno.chmod(dir, 0o700);
  const file = join(dir, await loginFileName(login.server, login.url));
  await writeFileAtomic(file, JSON.stringify(login, null, 2) + "\n", { mode: 0o600 });
}

/**
 * Removes every stored login of `server` (any URL); returns the URLs they were for. A name
 * whose entry was removed from config, or points elsewhere now, is forgotten all the same.
 */
export async function removeLogins(server: string): Promise<string[]> {
  const dir = loginsDir();
  if (dir === null) return [];
  // The name's own files only: `a-<hash>.json`, not `a-b-<hash>.json` of server "a-b".
  const own = new RegExp(`^${fileSafe(server)}-[0-9a-f]{16}\\.json$`);
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile || !own.test(entry.name)) continue;
    const file = join(dir, entry.name);
    let login: Partial<StoredLogin> = {};
    try {
      login = JSON.parse(await Deno.readTextFile(file));
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
    // Another name may have the same file-safe form (`a.b` and `a_b`): only this one's go.
    if (login.server !== undefined && login.server !== server) continue;
    await Deno.remove(file);
    removed.push(login.url ?? entry.name);
  }
  return removed;
}
