/**
 * grep with one engine or both, for the grep tests: the registries, and a run that checks the
 * two engines give the same text.
 * @module
 */
import assert from "node:assert/strict";
import { ToolRegistry } from "../../src/tools/mod.ts";
import { createGrep, type GrepEngine, grepSpec } from "../../plugins/core-fs/grep.ts";
import { hasProgram } from "./has_program.ts";
import { runTool, type TempWorktree } from "./worktree.ts";

/** Whether ripgrep can run here; the comparisons need it. */
export const hasRipgrep = await hasProgram("rg");

/** A registry holding grep with one engine (and an optional time budget). */
export function grepRegistry(engine: GrepEngine, budgetMs?: number): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    grepSpec,
    createGrep(budgetMs === undefined ? { engine } : { engine, budgetMs }),
  );
  return registry;
}

const builtin = grepRegistry("builtin");
const ripgrep = grepRegistry("rg");

/** Runs grep with both engines and checks they agree; returns the shared text. */
export async function grepBoth(
  wt: TempWorktree,
  args: Record<string, unknown>,
): Promise<string> {
  const own = await runTool(wt, "grep", args, { registry: builtin });
  if (hasRipgrep) {
    assert.equal(await runTool(wt, "grep", args, { registry: ripgrep }), own, JSON.stringify(args));
  }
  return own;
}
