/**
 * Making one drawn call for tests/security/policy_properties_test.ts: through invokeTool under a
 * fresh policy (the mode, the headless flag or a person's answer, the session's "always" rules,
 * a parked call's recorded answer), after resetting what it could change; resolved as `replio
 * policy explain` resolves it, with the project file and without; then every property checked,
 * and a failure reported with the whole case and the seed that reruns it.
 * @module
 */
import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/mod.ts";
import {
  type AnswerableCall,
  createToolContext,
  type GivenAnswer,
  type InvokeOptions,
  type InvokeOutcome,
  invokeTool,
  modeNames,
  type PermissionRecord,
  type PolicyResolution,
  type PolicyStep,
  type SessionApprovals,
  type Tool,
  ToolCallError,
  toolIsolation,
  ToolPolicy,
  type ToolRegistry,
} from "../../src/tools/mod.ts";
import { CollectingSink } from "../../src/ui/collecting_sink.ts";
import type { ConfirmAnswer, ConfirmRequest } from "../../src/ui/events.ts";
import type { Answerer, DrawnCall } from "./policy_call_draws.ts";
import {
  checkCall,
  countCase,
  describeAnswerer,
  type ObservedCall,
  type Tally,
  type Violation,
} from "./policy_checks.ts";
import { type Draw, type DrawnConfig, layerYaml } from "./policy_draws.ts";
import { expectPolicy } from "./policy_oracle.ts";
import type { PolicyWorld } from "./policy_world.ts";

/** A sink whose person gives one answer to every confirm, and which keeps the prompts. */
class AnsweringSink extends CollectingSink {
  readonly requests: ConfirmRequest[] = [];
  constructor(private readonly answer: ConfirmAnswer) {
    super();
  }
  override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.requests.push(request);
    return Promise.resolve(this.answer);
  }
}

/** One drawn world in use: its files, config, tools and the person's "always" rules. */
export interface WorldRun {
  drawn: DrawnConfig;
  world: PolicyWorld;
  registry: ToolRegistry;
  aliases: ReadonlyMap<string, readonly string[]>;
  approvals: SessionApprovals;
  draw: Draw;
  seed: number;
  index: number;
  tally: Tally;
}

/** A call to make: under which mode, answered by whom, maybe with a recorded answer. */
export interface CallPlan {
  call: DrawnCall;
  mode: string | undefined;
  answerer: Answerer;
  answer?: InvokeOptions["answer"];
  /** How this call came about, for the failure report (a resumed variant of a parked call). */
  story?: string;
}

/** What {@link makeCall} returns: what the checks read, and the outcome's parked info. */
export interface MadeCall {
  seen: ObservedCall;
  parked: InvokeOutcome["parked"];
}

/** Makes one call, checks every property on it, and fails the test with the whole case. */
export async function checkedCall(run: WorldRun, plan: CallPlan): Promise<MadeCall | null> {
  const made = await makeCall(run, plan);
  if (made === null) return null;
  const violation = checkCall(made.seen, run.tally);
  if (violation) failCase(run, plan, made.seen, violation);
  return made;
}

/**
 * Runs `plan` through invokeTool as the loop would, after resetting what it could change, and
 * resolves it as `policy explain` does; null when the mode is unknown (checked here: a clear error).
 */
export async function makeCall(run: WorldRun, plan: CallPlan): Promise<MadeCall | null> {
  const { world, registry, drawn } = run;
  const { call, answerer } = plan;
  const expected = expectPolicy(drawn, plan.mode);
  const headless = answerer.kind === "headless" ? answerer.answer : undefined;
  let policy: ToolPolicy;
  try {
    policy = new ToolPolicy({
      config: world.config,
      worktree: world.worktree,
      mode: plan.mode,
      headless,
      approvals: answerer.kind === "person" ? run.approvals : undefined,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    if (
      expected.isModeKnown ||
      !/^Cannot use mode "[^"]+": no such mode: use one of /.test(error.message)
    ) {
      failCase(run, plan, null, {
        property: "a mode the config defines starts",
        detail: error.message,
      });
    }
    countCase(run.tally, "clear error: an unknown mode");
    return null;
  }
  if (!expected.isModeKnown) {
    failCase(run, plan, null, {
      property: "an unknown mode is refused",
      detail: `no loaded file defines mode "${expected.mode}", yet the policy took it`,
    });
  }
  const tool = prepared(run, call)?.tool ?? null;
  const explained = tool ? await explain(run, world.config, plan.mode, call) : null;
  // A trusted project may define the mode itself; without its file the mode does not exist.
  const baseline = tool && (!expected.isTrusted || knowsMode(world.baseline, plan.mode))
    ? (await explain(run, world.baseline, plan.mode, call))?.resolution ?? null
    : null;

  await world.reset(call.probe);
  const sink = new AnsweringSink(personAnswer(answerer, call));
  const audit: PermissionRecord[] = [];
  let given: GivenAnswer | undefined;
  const ctx = createToolContext({
    config: world.config,
    worktree: world.worktree,
    signal: new AbortController().signal,
  });
  const outcome = await invokeTool({
    registry,
    policy,
    ctx,
    sink,
    audit: (record) => audit.push(record),
    // Keeps what the recorded answer gave, to check it was given only for its own call.
    answer: plan.answer &&
      (async (answerable: AnswerableCall) => given = await plan.answer!(answerable)),
  }, { id: call.id, name: call.name, arguments: call.args });
  const seen: ObservedCall = {
    call,
    tool,
    expected,
    answerer,
    isSandboxed: tool !== null &&
      toolIsolation(tool, world.config, world.worktree).startsWith("bwrap("),
    explained,
    baseline,
    isTrustedByConfig: world.config.trust.trusted,
    decision: outcome.decision,
    isError: outcome.isError,
    output: outcome.output,
    audit: audit[0],
    confirms: sink.requests,
    given,
    ran: await world.observe(call.probe, outcome.output),
  };
  return { seen, parked: outcome.parked };
}

/** What the person at the prompt says; a headless run never asks, and "no" is the safe reply. */
function personAnswer(answerer: Answerer, call: DrawnCall): ConfirmAnswer {
  if (answerer.kind !== "person") return "no";
  return answerer.answer === "edited" ? { edited: String(call.args.command) } : answerer.answer;
}

function knowsMode(config: PolicyWorld["config"], mode: string | undefined): boolean {
  return modeNames(config).includes(mode ?? config.get("mode"));
}

function prepared(
  run: WorldRun,
  call: DrawnCall,
): { tool: Tool; args: Record<string, unknown> } | null {
  try {
    return run.registry.prepare(call.name, call.args);
  } catch (error) {
    if (error instanceof ToolCallError) return null;
    throw error;
  }
}

/** What `replio policy explain` resolves for the call: a fresh policy, no person, no rules. */
async function explain(
  run: WorldRun,
  config: PolicyWorld["config"],
  mode: string | undefined,
  call: DrawnCall,
): Promise<{ resolution: PolicyResolution; trace: PolicyStep[] } | null> {
  const found = prepared(run, call);
  if (!found) return null;
  const policy = new ToolPolicy({ config, worktree: run.world.worktree, mode });
  const trace: PolicyStep[] = [];
  const resolution = await policy.resolve(found.tool, found.args, {}, trace);
  return { resolution, trace };
}

/** Fails the test with the broken property, the seed that reruns it and the whole case. */
export function failCase(
  run: WorldRun,
  plan: CallPlan,
  seen: ObservedCall | null,
  violation: Violation,
): never {
  assert.fail(
    `Property "${violation.property}" failed: ${violation.detail}\n` +
      `Rerun: REPLIO_PROPERTY_SEED=${run.seed} deno task test tests/security/policy_properties_test.ts\n` +
      describeCase(run, plan, seen),
  );
}

/** The whole case, as a person rerunning it needs to read it. */
function describeCase(run: WorldRun, plan: CallPlan, seen: ObservedCall | null): string {
  const { drawn } = run;
  const indent = (text: string) => text.trimEnd().replaceAll(/^/gm, "    ");
  const project = drawn.project === null
    ? "    (none)"
    : drawn.project === "invalid"
    ? "    (not valid YAML)"
    : indent(layerYaml(drawn.project));
  const explained = seen?.explained?.resolution;
  return [
    `World ${run.index} (root ${run.world.root}, removed after the test):`,
    `  trust: --trust ${drawn.trustFlag}, global trusted_folders [${
      drawn.trustedFolders.join(", ")
    }], ` +
    `the project lists itself ${drawn.projectTrustsItself}; sandbox.mode ${drawn.sandbox}`,
    `  global config:`,
    indent(layerYaml(drawn.global)),
    `  project config:`,
    project,
    `Call: ${plan.call.name} ${JSON.stringify(plan.call.args)} (id ${plan.call.id}) in mode ` +
    `${plan.mode ?? `${expectPolicy(drawn, undefined).mode} (the config's)`}, answered by ${
      describeAnswerer(plan.answerer)
    }`,
    ...(plan.story ? [`  ${plan.story}`] : []),
    ...(seen
      ? [
        `  explain: ${
          explained ? `${explained.action} (${explained.reason})` : "(did not prepare)"
        }; invokeTool: ${seen.audit?.action} → ${seen.decision} (${seen.audit?.reason}); ` +
        `ran ${seen.ran}`,
        `  explain steps: ${seen.explained?.trace.map((s) => `${s.step} ${s.result}`).join(", ")}`,
        `  the model got: ${JSON.stringify(seen.output.slice(0, 200))}`,
      ]
      : []),
  ].join("\n");
}
