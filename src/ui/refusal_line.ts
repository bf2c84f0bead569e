/**
 * What a refused tool call means to a person. The tool result says it to the model ("do not
 * retry it; use another tool"); people get what happened and what they can do about it, worded
 * for the front-end they use (the REPL's commands, or the command line's flags). Built from the
 * `permission` event's decision and reason, never from the model's text.
 * @module
 */
import type { Decision } from "./events.ts";

/** Who reads the line: the REPL's person, `replio run`'s, or `replio tool`'s. */
export type Audience = "repl" | "run" | "tool";

/** A refused call as the `permission` event reports it. */
export interface Refusal {
  /** The tool's name as the policy knows it. */
  tool: string;
  decision: Exclude<Decision, "granted" | "parked">;
  /** The audit reason, e.g. `mode plan` or `outside worktree; headless`. */
  reason: string;
}

/** A refusal in two parts: what happened, and what the person can do about it ("" for nothing). */
export interface RefusalExplained {
  what: string;
  fix: string;
}

/**
 * What happened and the fix, for a front-end to frame.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   explainRefusal({ tool: "file_read", decision: "denied", reason: "outside worktree; headless" }, "tool"),
 *   { what: "file_read needs your confirmation (outside the worktree)", fix: "rerun with --yes to allow it" },
 * );
 * ```
 */
export function explainRefusal(refusal: Refusal, audience: Audience): RefusalExplained {
  const { tool, reason } = refusal;
  const repl = audience === "repl";
  if (refusal.decision === "declined") {
    const by = reason.split("; ").slice(1).join("; ");
    // A parked call declined with `replio deny`, or a person's answer at the REPL's prompt.
    if (by.startsWith("replio deny")) return { what: `declined with ${by}`, fix: "" };
    const said = /\("(.*)"\)$/.exec(by);
    return {
      what: said ? `you declined; the model was told why: "${said[1]}"` : "you declined",
      fix: "",
    };
  }
  const [rule = reason, how = ""] = reason.split("; ");
  if (rule.startsWith("protected path ") && how.startsWith("headless")) {
    const path = rule.slice("protected path ".length);
    return {
      what: `${tool} would write ${path}, a protected path only a person can approve` +
        (how === "headless --yes" ? " (--yes does not cover it)" : ""),
      fix: "make the change in the REPL, which asks you first",
    };
  }
  if (how === "headless") {
    return audience === "run"
      ? { what: `it needs approval (${rule}) and a headless run cannot ask`, fix: yesFix }
      : { what: `${tool} needs your confirmation (${readable(rule)})`, fix: yesFix };
  }
  if (rule.startsWith("deno: needs ")) {
    const flags = rule.slice("deno: needs ".length);
    return {
      what: `replio was started without ${flags}`,
      fix: `restart it with ${flags} to use ${tool}`,
    };
  }
  if (rule === "tools.deny") {
    return {
      what: `tools.deny blocks ${tool}`,
      fix: repl
        ? "take it out of tools.deny (/config tools.deny shows where it is set) to allow it"
        : "take it out of tools.deny (replio config get tools.deny shows where it is set) to allow it",
    };
  }
  if (rule === "tools.allow") {
    return { what: `${tool} is not in tools.allow`, fix: "add it to tools.allow to allow it" };
  }
  const mode = /^mode (\S+)(?: is (.*))?$/.exec(rule);
  if (mode) {
    return {
      what: mode[2] ? `mode ${mode[1]} is ${mode[2]}` : `mode ${mode[1]} does not allow ${tool}`,
      fix: repl
        ? "switch modes with /mode or Shift+Tab to allow it"
        : "rerun with --mode default (or another mode that allows it)",
    };
  }
  const key = /^tool_permission\.(\w+)$/.exec(rule);
  if (key) {
    return {
      what: `tool_permission.${key[1]} is deny`,
      fix: repl
        ? `/config tool_permission.${key[1]} ask allows it with a question`
        : `set tool_permission.${key[1]} to ask or allow (replio config set) to use ${tool}`,
    };
  }
  const rules = "`replio tools` shows the rules, `replio config set` and --mode change them";
  return {
    what: `blocked by policy (${reason})`,
    // `replio tool` has no model to tell: only the rules are worth a word there.
    fix: repl
      ? "the model was told to take another way; /help shows the rules, /config and /mode change them"
      : audience === "run"
      ? `the model was told to take another way; ${rules}`
      : rules,
  };
}

const yesFix = "rerun with --yes to allow it";

/**
 * The line the REPL and `replio run` show for a declined or denied call; `changesFiles`: the
 * call showed a diff, which is then marked as not applied.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   refusalLine({ tool: "bash", decision: "denied", reason: "tool_permission.bash; headless" }, false, "run"),
 *   "! Not run: it needs approval (tool_permission.bash) and a headless run cannot ask: rerun with --yes to allow it",
 * );
 * assert.equal(
 *   refusalLine({ tool: "file_edit", decision: "declined", reason: "tool_permission.edit" }, true, "repl"),
 *   "✗ Not applied: you declined it",
 * );
 * ```
 */
export function refusalLine(refusal: Refusal, changesFiles: boolean, audience: Audience): string {
  const { what, fix } = explainRefusal(refusal, audience);
  // "you declined it": the diff above is what was declined.
  if (what === "you declined" && changesFiles) return "✗ Not applied: you declined it";
  const mark = refusal.decision === "declined" ? "✗" : "!";
  const outcome = changesFiles ? "Not applied" : "Not run";
  return `${mark} ${outcome}: ${what}${fix ? `: ${fix}` : ""}`;
}

/** A policy rule as a person reads it. */
function readable(rule: string): string {
  return rule === "outside worktree" ? "outside the worktree" : rule;
}

/**
 * The result of a call stopped by a cancel (Ctrl-C, Esc, SIGINT) as the model gets it (the
 * registry's text); the event carries no other sign of it, so renderers recognise this text.
 */
export const CANCELLED_RESULT = "Error: cancelled by the user";

/**
 * The line shown instead of {@link CANCELLED_RESULT}.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(cancelledLine("repl"), "✗ Stopped: you cancelled the turn");
 * ```
 */
export function cancelledLine(audience: Audience): string {
  return audience === "repl"
    ? "✗ Stopped: you cancelled the turn"
    : "✗ Stopped: the run was cancelled";
}
