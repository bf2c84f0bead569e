/**
 * Where user plugins are cached: `$XDG_CACHE_HOME/replio/plugins` (default
 * `~/.cache/replio/plugins`), files named by the sha256 of what they hold, so a cached copy is
 * its own integrity check and offline runs can use it. Never replio's own `deno.lock`.
 * @module
 */
import { join } from "../fs/path.ts";
import { writeFileAtomic } from "../fs/write_file_atomic.ts";

/** The cache folder, or null when neither XDG_CACHE_HOME nor HOME may be read. */
export function pluginCacheDir(): string | null {
  const canRead = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
  const xdg = canRead("XDG_CACHE_HOME") ? Deno.env.get("XDG_CACHE_HOME") : undefined;
  if (xdg) return join(xdg, "replio", "plugins");
  const home = canRead("HOME") ? Deno.env.get("HOME") : undefined;
  return home ? join(home, ".cache", "replio", "plugins") : null;
}

/**
 * What a cache file holds: a URL plugin's `source`, the type-stripped `js`, or the `tools` a
 * Worker reported for a given JavaScript and permissions.
 */
export type CacheKind = "source" | "js" | "tools";

/** `sha256-<base64>`, the Subresource Integrity form pinned in config. */
export async function sha256Integrity(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}

/** The cache file for an integrity (base64's `/` and `+` made file-safe) and a kind. */
function cacheFile(dir: string, integrity: string, kind: CacheKind): string {
  return join(dir, `${integrity.replace(/\//g, "_").replace(/\+/g, "-")}.${kind}`);
}

/** The cached text for an integrity, or null; a copy that no longer matches is ignored. */
export async function readCached(
  integrity: string,
  kind: CacheKind,
): Promise<string | null> {
  const dir = pluginCacheDir();
  if (!dir) return null;
  try {
    const text = await Deno.readTextFile(cacheFile(dir, integrity, kind));
    // A stripped copy is keyed by its source's integrity; only a source copy can be re-checked.
    if (kind === "source" && await sha256Integrity(text) !== integrity) return null;
    return text;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return null;
    }
    throw error;
  }
}

/** Stores text under an integrity; a cache that cannot be written is skipped, not fatal. */
export async function writeCached(
  integrity: string,
  kind: CacheKind,
  text: string,
): Promise<void> {
  const dir = pluginCacheDir();
  if (!dir) return;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await writeFileAtomic(cacheFile(dir, integrity, kind), text);
  } catch (error) {
    if (
      !(error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)
    ) {
      throw error;
    }
  }
}
