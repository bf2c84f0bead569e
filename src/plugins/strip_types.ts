/**
 * Turns a plugin's TypeScript into JavaScript a Worker can start from: Sucrase strips the types
 * and keeps every line where it was, so an error's line and column still point into the file.
 * Results are cached by the source's integrity, sealed (plugin_cache.ts): a cached copy changed
 * since replio wrote it is never run. Sucrase (about 130 ms to import) loads only on a cache miss.
 * @module
 */
import { readCacheEntry, sha256Integrity, writeCached } from "./plugin_cache.ts";

/** Whether a module name or URL is TypeScript (`.ts`, `.mts`, `.tsx`). */
export function isTypeScript(name: string): boolean {
  return /\.(ts|mts|tsx)$/i.test(new URL(name, "file:///").pathname);
}

/**
 * The JavaScript for `source` (TypeScript stripped, cached; JavaScript as it is), or, when the
 * cached copy was changed since replio wrote it, that copy's file: the caller decides what to
 * trust next (user_plugins.ts fetches the plugin again).
 */
export async function stripTypes(
  source: string,
  name: string,
): Promise<{ code: string } | { changed: string }> {
  if (!isTypeScript(name)) return { code: source };
  const integrity = await sha256Integrity(source);
  const cached = await readCacheEntry(integrity, "js");
  if (cached.state === "hit") return { code: cached.text };
  if (cached.state === "changed") return { changed: cached.file };
  return { code: await strip(source, name, integrity) };
}

/** The JavaScript for `source`; a changed cached copy is replaced by a fresh strip. */
export async function toJavaScript(source: string, name: string): Promise<string> {
  const stripped = await stripTypes(source, name);
  return "code" in stripped
    ? stripped.code
    : await strip(source, name, await sha256Integrity(source));
}

/** Strips `source` with Sucrase and caches the result under the source's integrity. */
async function strip(source: string, name: string, integrity: string): Promise<string> {
  const { transform } = await import("sucrase");
  let code: string;
  try {
    code = transform(source, {
      transforms: name.endsWith(".tsx") ? ["typescript", "jsx"] : ["typescript"],
      disableESTransforms: true,
    }).code;
  } catch (error) {
    // Sucrase says `Unexpected token (3:12)`; say where as a runtime SyntaxError would.
    const message = error instanceof Error ? error.message : String(error);
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    throw new SyntaxError(
      at
        ? `${message.slice(0, at.index).trim()} at ${name}:${at[1]}:${Number(at[2]) + 1}`
        : message,
    );
  }
  await writeCached(integrity, "js", code);
  return code;
}
