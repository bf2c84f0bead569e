/**
 * What a refused tool call means to a person. The tool result says it to the model ("do not
 * retry it; use another tool"); people get what happened and what they can do about it.
 * @module
 */
import type { Decision } from "./events.ts";

/** Who reads the line: the REPL's person, or whoever runs `replio run` (flags decide there). */
export type Audience = "repl" | "headless";

/**
 * The line shown for a declined or denied call; `changesFiles`: the call showed a diff.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   refusalLine("denied", "tool_permission.bash; headless", false, "headless"),
 *   "! Not run: it needs approval (tool_permission.bash) and a headless run cannot ask: rerun with --yes to allow it",
 * );
 * ```
 */
export function refusalLine(
  decision: Exclude<Decision, "granted">,
  reason: string,
  changesFiles: boolean,
  audience: Audience,
): string {
  if (decision === "declined") {
    return changesFiles ? "✗ Not applied: you declined it" : "✗ Not run: you declined";
  }
  const [rule = reason, how] = reason.split("; ");
  if (how === "headless") {
    return `! Not run: it needs approval (${rule}) and a headless run cannot ask: ` +
      "rerun with --yes to allow it";
  }
  const change = audience === "repl"
    ? "/help shows the rules, /config and /mode change them"
    : "`replio tools` shows the rules, `replio config set` and --mode change them";
  return `! Blocked by policy (${rule}): the model was told to take another way; ${change}`;
}
