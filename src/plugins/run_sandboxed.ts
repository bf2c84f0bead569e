/**
 * Runs a tool's command the way config says: inside the OS sandbox when it is active, records
 * how it ran in the call's context, and when the sandbox seems to have stopped the command, or
 * cannot be set up for it here, says so and asks the person once whether to run it without the
 * sandbox.
 * @module
 */
import type { ToolContext } from "../tools/types.ts";
import { type KeptProcessResult, runProcessKept } from "./kept_output.ts";
import type { RunProcessOptions } from "./run_process.ts";
import { planSandbox, sandboxHint } from "./sandbox_bwrap.ts";
import { SandboxRefused } from "./sandbox_refused.ts";

/** A command's result plus the sandbox note the model should read, if any. */
export interface SandboxedResult extends KeptProcessResult {
  /** `[sandbox] …`: why the sandbox may have stopped it; empty when it did not. */
  sandboxNote: string;
}

type CommandOptions = Omit<RunProcessOptions, "sandbox">;

/**
 * {@link runProcess} under the configured sandbox (`sandbox.mode`, `sandbox.network`). Throws
 * when `sandbox.mode: bwrap` is set but bubblewrap cannot run here, and when the sandbox cannot
 * hold the command and no person lets it run without.
 */
export async function runSandboxed(
  ctx: ToolContext,
  options: CommandOptions,
): Promise<SandboxedResult> {
  const plan = planSandbox(ctx.config, ctx.worktree);
  if (plan.problem) {
    ctx.reportIsolation?.("none");
    throw new Error(plan.problem);
  }
  // Output that the result leaves out is kept whole in the session's store (tool_output).
  let result: KeptProcessResult;
  try {
    result = await runProcessKept({ ...options, sandbox: plan }, ctx);
  } catch (error) {
    if (!(error instanceof SandboxRefused)) throw error;
    ctx.reportIsolation?.("none");
    const rerun = await rerunIfAllowed(ctx, options, error.message);
    if (!rerun) throw error;
    return rerun;
  }
  ctx.reportIsolation?.(result.isolation);
  if (result.timedOut || result.cancelled) return { ...result, sandboxNote: "" };
  const hint = sandboxHint(plan, result.exitCode, result.output);
  if (!hint) return { ...result, sandboxNote: "" };
  const question = `\`${options.command}\` failed inside the sandbox: ${hint}`;
  return await rerunIfAllowed(ctx, options, question) ?? {
    ...result,
    sandboxNote: `[sandbox] ${hint}; the user may rerun it without the sandbox`,
  };
}

/** Asks the person whether to run the command once without the sandbox; runs it on "yes". */
async function rerunIfAllowed(
  ctx: ToolContext,
  options: CommandOptions,
  why: string,
): Promise<SandboxedResult | undefined> {
  // Only a person may lift the sandbox, once; headless runs and sub-agents get the note.
  const answer = await ctx.ask({
    question: `${why}. Run it once without the sandbox?`,
    options: ["yes", "no"],
    target: "human",
  });
  if (answer?.trim().toLowerCase() !== "yes") return undefined;
  const rerun = await runProcessKept({ ...options }, ctx);
  ctx.reportIsolation?.(rerun.isolation);
  return { ...rerun, sandboxNote: "[sandbox] rerun without the sandbox, as the user allowed" };
}
