/**
 * `/permissions [remove N]`: the "always allow" rules accepted at confirm prompts in this REPL,
 * the way to take one back, and how each tool the policy allows runs (in-process, worker(…),
 * bwrap(…) or none: docs/sandbox.md).
 * @module
 */
import { describeRule, toolIsolation } from "../tools/mod.ts";
import type { ReplContext } from "./context.ts";
import type { SlashCommand } from "./context.ts";
import { splitFirst } from "./slash.ts";

/** `/permissions [remove N]`. */
export const permissionsCommand: SlashCommand = {
  name: "permissions",
  usage: "/permissions [remove N]",
  summary: "List the rules you allowed always in this session, or remove one",
  complete: () => ["remove"],
  run(repl, args) {
    const [action, rest] = splitFirst(args);
    const rules = repl.approvals.list();
    if (action === "remove") {
      const n = Number(rest);
      if (!Number.isInteger(n) || n < 1 || n > rules.length) {
        repl.printError(
          `Cannot remove rule "${rest}": no such rule: use a number from /permissions (1-${rules.length})`,
        );
        return;
      }
      const removed = repl.approvals.remove(n - 1)!;
      repl.print(`Removed: ${describeRule(removed)}; it asks again`, repl.styles.dim);
      return;
    }
    if (action) {
      repl.printError(`Cannot run /permissions ${action}: unknown action: use remove N`);
      return;
    }
    if (rules.length === 0) {
      repl.print(
        `No rules allowed always in this session (mode ${repl.policy.mode}): answer "a" at a ` +
          "confirm prompt to add one",
        repl.styles.dim,
      );
    } else {
      repl.print(`Allowed always in this session (mode ${repl.policy.mode}):`);
      rules.forEach((rule, i) => repl.print(`${i + 1}. ${describeRule(rule)}`));
      repl.print("/permissions remove N takes one back", repl.styles.dim);
    }
    printIsolation(repl);
  },
};

/** Each tool the policy offers, its action and how its calls run. */
function printIsolation(repl: ReplContext): void {
  const tools = repl.registry.list().filter((tool) => repl.policy.isVisible(tool));
  const width = Math.max(4, ...tools.map((tool) => tool.name.length));
  repl.print("How calls run:", repl.styles.dim);
  for (const tool of tools) {
    const { action } = repl.policy.resolveStatic(tool);
    repl.print(
      `  ${tool.name.padEnd(width)}  ${action.padEnd(5)}  ` +
        toolIsolation(tool, repl.config, repl.worktree),
      repl.styles.dim,
    );
  }
}
