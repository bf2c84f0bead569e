/**
 * Turns a plugin's TypeScript into JavaScript a Worker can start from: Sucrase strips the types
 * and keeps every line where it was, so an error's line and column still point into the file.
 * Results are cached by the source's integrity; Sucrase (about 130 ms to import) loads only on a
 * cache miss.
 * @module
 */
import { readCached, sha256Integrity, writeCached } from "./plugin_cache.ts";

/** Whether a module name or URL is TypeScript (`.ts`, `.mts`, `.tsx`). */
export function isTypeScript(name: string): boolean {
  return /\.(ts|mts|tsx)$/i.test(new URL(name, "file:///").pathname);
}

/** The JavaScript for `source`: TypeScript stripped (cached), JavaScript as it is. */
export async function toJavaScript(source: string, name: string): Promise<string> {
  if (!isTypeScript(name)) return source;
  const integrity = await sha256Integrity(source);
  const cached = await readCached(integrity, "js");
  if (cached !== null) return cached;
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
