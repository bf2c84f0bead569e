/**
 * Approvals with memory: the rules a person accepted with `a` (always) at a confirm prompt,
 * kept for the REPL session. A rule names one tool and what it covers: a command prefix (the
 * tool's own `approval` hook, run_command's matches whole words of every command in the line),
 * a path glob for tools with a path argument, or else the exact key argument.
 * @module
 */
import { dirname, relative, sep } from "../fs/path.ts";
import type { Tool, ToolArgs } from "./types.ts";

/** One remembered approval. */
export interface ApprovalRule {
  tool: string;
  kind: "prefix" | "glob" | "exact";
  pattern: string;
}

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
      return `${rule.tool} commands starting with "${rule.pattern}"`;
    case "glob":
      return `${rule.tool} on paths matching "${rule.pattern}"`;
    case "exact":
      return `${rule.tool} with "${rule.pattern}"`;
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
    const same = this.#rules.some((r) =>
      r.tool === rule.tool && r.kind === rule.kind && r.pattern === rule.pattern
    );
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
      // A rule that would not cover the very call it is offered on (a chained command) is none.
      if (pattern === null || !(await tool.approval.matches(args, pattern))) return null;
      return { tool: tool.name, kind: "prefix", pattern };
    }
    if (path !== undefined) {
      const inside = relative(worktree, path);
      if (inside.startsWith("..") || inside === "") return null;
      const folder = dirname(inside);
      const pattern = folder === "." ? inside : `${folder.split(sep).join("/")}/**`;
      return { tool: tool.name, kind: "glob", pattern };
    }
    const key = tool.keyArg ? args[tool.keyArg] : undefined;
    return typeof key === "string" ? { tool: tool.name, kind: "exact", pattern: key } : null;
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
      if (path === undefined) return false;
      const inside = relative(worktree, path).split(sep).join("/");
      if (inside.startsWith("..")) return false;
      const { default: picomatch } = await import("picomatch");
      return picomatch(rule.pattern, { dot: true })(inside);
    }
    case "exact":
      return tool.keyArg !== undefined && args[tool.keyArg] === rule.pattern;
  }
}
