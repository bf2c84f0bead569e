/**
 * Shift+Tab at the prompt: the next mode, in the order people reach for them (as Claude Code's
 * Shift+Tab does): default, plan, accept-edits, sandboxed, then modes the config adds.
 * @module
 */
import type { Config } from "../config/mod.ts";
import { BUILTIN_MODES, type ModeSpec } from "../tools/mod.ts";

/** The built-in modes first, in this order; the config's own follow in theirs. */
const CYCLE_ORDER = ["default", "plan", "accept-edits", "sandboxed"];

/**
 * The mode after `current` among `names` (wrapping round).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const names = ["default", "plan", "sandboxed", "accept-edits", "review"];
 * assert.equal(nextMode("default", names), "plan");
 * assert.equal(nextMode("plan", names), "accept-edits");
 * assert.equal(nextMode("sandboxed", names), "review");
 * assert.equal(nextMode("review", names), "default");
 * ```
 */
export function nextMode(current: string, names: readonly string[]): string {
  const rank = (name: string) => {
    const at = CYCLE_ORDER.indexOf(name);
    return at < 0 ? CYCLE_ORDER.length + names.indexOf(name) : at;
  };
  const ordered = [...names].sort((a, b) => rank(a) - rank(b));
  return ordered[(ordered.indexOf(current) + 1) % ordered.length] ?? "default";
}

/** A mode's one-line description (the config's, else the built-in one); "" when it has none. */
export function describeMode(config: Config, name: string): string {
  if (name === "default") return "The configured policy, no mode layered over it";
  const spec = (config.get("modes") as Record<string, ModeSpec>)[name] ?? BUILTIN_MODES[name];
  return spec?.description ?? "";
}
