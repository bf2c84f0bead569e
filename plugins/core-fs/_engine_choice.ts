/**
 * How grep and glob pick their engine, in one place: under `auto` a small tree is searched in
 * this process (_small_tree.ts), a larger one by ripgrep, and the built-in engine takes over
 * where ripgrep is missing, not permitted or refuses; `rg` insists on ripgrep; `builtin` never
 * starts it.
 * @module
 */
import type { RipgrepUnavailable } from "./_ripgrep.ts";

/** Which engine a search uses. */
export type SearchEngine = "auto" | "rg" | "builtin";

/** One search done by each engine; each loads what it needs when called. */
export interface Engines<T> {
  /** The answer for a small tree, searched here; null for a larger one. */
  small: () => Promise<T | null>;
  ripgrep: () => Promise<T | RipgrepUnavailable>;
  builtin: () => Promise<T>;
  /** What to say when `rg` was asked for and cannot run. */
  missing: () => Error;
}

/** The search's answer from the engine `engine` calls for. */
export async function searchWith<T>(engine: SearchEngine, engines: Engines<T>): Promise<T> {
  if (engine === "builtin") return await engines.builtin();
  if (engine === "auto") {
    const small = await engines.small();
    if (small !== null) return small;
  }
  const found = await engines.ripgrep();
  if (found === "missing" && engine === "rg") throw engines.missing();
  return found === "missing" || found === "unsupported" ? await engines.builtin() : found;
}
