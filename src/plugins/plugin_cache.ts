/**
 * Where user plugins are cached: `$XDG_CACHE_HOME/replio/plugins` (default
 * `~/.cache/replio/plugins`), files named by the sha256 of what they were made from. A `source`
 * file is named by its own integrity, so it is its own check. What replio derives from a checked
 * source (the type-stripped `js`, the `tools` a Worker reported) is sealed: its first line is the
 * sha256 of the rest, written with it, so a copy changed afterwards is refused rather than run.
 * Offline runs use the cache. Never replio's own `deno.lock`.
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

/**
 * A cache lookup: the text, nothing cached (or a copy from an older replio without a seal), or
 * a copy changed since replio wrote it (`file` names it): never use that one.
 */
export type CacheRead =
  | { state: "hit"; text: string }
  | { state: "miss" }
  | { state: "changed"; file: string };

/** `sha256-<base64>`, the Subresource Integrity form pinned in config. */
export async function sha256Integrity(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`;
}

/** A sealed file's first line: the integrity of what follows it. */
const SEAL = /^(sha256-[A-Za-z0-9+/]+=*)\n/;

/** The cache file for an integrity (base64's `/` and `+` made file-safe) and a kind. */
function cacheFile(dir: string, integrity: string, kind: CacheKind): string {
  return join(dir, `${integrity.replace(/\//g, "_").replace(/\+/g, "-")}.${kind}`);
}

/**
 * Looks up the cached text for an integrity: a source must hash to its name, a derived text
 * to its seal.
 */
export async function readCacheEntry(integrity: string, kind: CacheKind): Promise<CacheRead> {
  const dir = pluginCacheDir();
  if (!dir) return { state: "miss" };
  const file = cacheFile(dir, integrity, kind);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return { state: "miss" };
    }
    throw error;
  }
  if (kind === "source") {
    return await sha256Integrity(text) === integrity
      ? { state: "hit", text }
      : { state: "changed", file };
  }
  const seal = SEAL.exec(text);
  // Unsealed: written by a replio before seals; made again from the checked source, no alarm.
  if (!seal) return { state: "miss" };
  const body = text.slice(seal[0].length);
  return await sha256Integrity(body) === seal[1]
    ? { state: "hit", text: body }
    : { state: "changed", file };
}

/** The cached source for an integrity, or null; a copy that no longer matches is ignored. */
export async function readCached(integrity: string, kind: "source"): Promise<string | null> {
  const read = await readCacheEntry(integrity, kind);
  return read.state === "hit" ? read.text : null;
}

/**
 * Stores text under an integrity, derived kinds sealed; a cache that cannot be written is
 * skipped, not fatal.
 */
export async function writeCached(
  integrity: string,
  kind: CacheKind,
  text: string,
): Promise<void> {
  const dir = pluginCacheDir();
  if (!dir) return;
  const content = kind === "source" ? text : `${await sha256Integrity(text)}\n${text}`;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await writeFileAtomic(cacheFile(dir, integrity, kind), content);
  } catch (error) {
    if (
      !(error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied)
    ) {
      throw error;
    }
  }
}
