/**
 * Approvals with memory: the rules a person accepted with `a` (always) at a confirm prompt,
 * kept for the REPL session. A rule names one tool and what it covers, never more than the
 * person was shown: the tool's own rule (its `approval` hook: run_command's is the exact
 * command or a prefix its parser proves safe), a folder (or the one file) for tools with a
 * path argument, or else the same arguments again.
 * @module
 */
import { dirname, relative, sep } from "../fs/path.ts";
import type { Tool, ToolArgs } from "./types.ts";

/**
 * One remembered approval: `prefix` is the tool's own pattern (`scope` words what it covers),
 * `glob` a path inside the worktree (`src/ui/**`: that folder and below; else that one file),
 * `exact` the key argument shown and the whole call (`args`, canonical JSON) it was given with.
 */
export type ApprovalRule =
  | { tool: string; kind: "prefix"; pattern: string; scope?: string }
  | { tool: string; kind: "glob"; pattern: string }
  | { tool: string; kind: "exact"; pattern: string; args: string };

/** A glob rule's folder suffix: the folder and everything below it. */
const BELOW = "/**";

/**
 * How one rule reads in prompts and `/permissions`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeRule({ tool: "file_edit", kind: "glob", pattern: "src/**" }),
 *   'file_edit on paths matching "src/**"',
 * );
 * ```
 */
export function describeRule(rule: ApprovalRule): string {
  switch (rule.kind) {
    case "prefix":
      return `${rule.tool} ${rule.scope ?? `commands starting with "${rule.pattern}"`}`;
    case "glob":
      return `${rule.tool} on paths matching "${rule.pattern}"`;
    case "exact": {
      const others = Object.keys(JSON.parse(rule.args)).length > 1;
      return `${rule.tool} with "${rule.pattern}"${others ? " and the same other arguments" : ""}`;
    }
  }
}

/** The rules accepted in this session, in the order they were accepted. */
export class SessionApprovals {
  readonly #rules: ApprovalRule[] = [];

  /** The rules, oldest first. */
  list(): readonly ApprovalRule[] {
    return this.#rules;
  }

  /** Remembers `rule` (once). */
  add(rule: ApprovalRule): void {
    const same = this.#rules.some((r) => canonicalJson(r) === canonicalJson(rule));
    if (!same) this.#rules.push(rule);
  }

  /** Forgets the rule at `index` (0-based); returns it, or undefined when there is none. */
  remove(index: number): ApprovalRule | undefined {
    return this.#rules.splice(index, 1)[0];
  }

  /**
   * The rule a person would accept for this call, or null when none fits (a tool that always
   * asks, or a call with nothing to scope a rule by).
   */
  async propose(
    tool: Tool,
    args: ToolArgs,
    path: string | undefined,
    worktree: string,
  ): Promise<ApprovalRule | null> {
    if (tool.alwaysAsk) return null;
    if (tool.approval) {
      const pattern = tool.approval.propose(args);
      // A rule that would not cover the very call it is offered on is none.
      if (pattern === null || !(await tool.approval.matches(args, pattern))) return null;
      const scope = tool.approval.describe?.(pattern);
      return { tool: tool.name, kind: "prefix", pattern, ...(scope ? { scope } : {}) };
    }
    if (path !== undefined) {
      const inside = insideWorktree(path, worktree);
      if (inside === null || inside === "") return null;
      const folder = dirname(inside);
      return { tool: tool.name, kind: "glob", pattern: folder === "." ? inside : folder + BELOW };
    }
    const key = tool.keyArg ? args[tool.keyArg] : undefined;
    // The key is what the prompt shows; the rest of the call (a query, a content) counts too.
    return typeof key === "string"
      ? { tool: tool.name, kind: "exact", pattern: key, args: canonicalJson(args) }
      : null;
  }

  /** The first rule that covers this call, or null. */
  async match(
    tool: Tool,
    args: ToolArgs,
    path: string | undefined,
    worktree: string,
  ): Promise<ApprovalRule | null> {
    const rules = this.#rules.filter((r) => r.tool === tool.name);
    if (rules.length === 0) return null;
    for (const rule of rules) {
      if (await covers(rule, tool, args, path, worktree)) return rule;
    }
    return null;
  }
}

async function covers(
  rule: ApprovalRule,
  tool: Tool,
  args: ToolArgs,
  path: string | undefined,
  worktree: string,
): Promise<boolean> {
  switch (rule.kind) {
    case "prefix":
      return tool.approval ? await tool.approval.matches(args, rule.pattern) : false;
    case "glob": {
      // Compared as text, not as a glob: a folder named `*`, `[a-z]` or `!x` is itself only.
      const inside = path === undefined ? null : insideWorktree(path, worktree);
      if (inside === null) return false;
      if (!rule.pattern.endsWith(BELOW)) return inside === rule.pattern;
      return inside.startsWith(`${rule.pattern.slice(0, -BELOW.length)}/`);
    }
    case "exact":
      return canonicalJson(args) === rule.args;
  }
}

/** `path` relative to the worktree with `/` separators, or null when it lies outside. */
function insideWorktree(path: string, worktree: string): string | null {
  const inside = relative(worktree, path).split(sep).join("/");
  return inside === ".." || inside.startsWith("../") || inside.startsWith("/") ? null : inside;
}

/** JSON with object keys sorted, so the same arguments give the same text in any order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, item) =>
      item !== null && typeof item === "object" && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
        : item,
  );
}
