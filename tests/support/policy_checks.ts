/**
 * The properties tests/security/policy_properties_test.ts checks on every call, given what the
 * call did (its outcome, audit record, confirm prompts, what changed on disk) and what the
 * oracle and `policy explain`'s resolution say. Each check returns the broken property with its
 * detail, or nothing; counts show which properties the drawn calls really exercised.
 * @module
 */
import type { PermissionRecord, PolicyResolution, PolicyStep, Tool } from "../../src/tools/mod.ts";
import type { ConfirmRequest, Decision } from "../../src/ui/events.ts";
import type { Answerer, DrawnCall } from "./policy_call_draws.ts";
import { type ExpectedPolicy, requiredDenial } from "./policy_oracle.ts";

/** What one call did, as the checks read it. */
export interface ObservedCall {
  call: DrawnCall;
  /** The registry's tool, or null when the call did not prepare (then nothing may run). */
  tool: Tool | null;
  expected: ExpectedPolicy;
  answerer: Answerer;
  isSandboxed: boolean;
  /** `policy explain`'s resolution and steps under the same config and mode. */
  explained: { resolution: PolicyResolution; trace: PolicyStep[] } | null;
  /** The same call resolved with the project file left out (what an untrusted one may only tighten). */
  baseline: PolicyResolution | null;
  isTrustedByConfig: boolean;
  decision: Decision | null;
  isError: boolean;
  /** What the model got (a report shows its start). */
  output: string;
  audit: PermissionRecord | undefined;
  confirms: readonly ConfirmRequest[];
  /** An earlier answer invokeTool used for this call (a parked call's recorded answer). */
  given: { decision: "granted" | "declined"; by: string } | undefined;
  /** Whether the call changed what it changes (a read: showed its secret). */
  ran: boolean;
}

/** A broken property: its name and what happened. */
export interface Violation {
  property: string;
  detail: string;
}

const RANK = { deny: 0, ask: 1, allow: 2 } as const;
const PERSON_GRANTS = new Set(["yes", "always", "edited"]);

/** Counts of what the checks saw, by label. */
export type Tally = Map<string, number>;

/** Counts one case under `label`. */
export function countCase(tally: Tally, label: string): void {
  tally.set(label, (tally.get(label) ?? 0) + 1);
}

/** Every property that applies to `seen`; counts what it exercised into `tally`. */
export function checkCall(seen: ObservedCall, tally: Tally): Violation | null {
  return checkNothingRunsUngranted(seen, tally) ?? checkExplicitDeny(seen, tally) ??
    checkProtected(seen, tally) ?? checkPlan(seen, tally) ?? checkUntrusted(seen, tally) ??
    checkExplain(seen, tally);
}

function checkNothingRunsUngranted(seen: ObservedCall, tally: Tally): Violation | null {
  if (seen.ran && seen.decision !== "granted") {
    return {
      property: "nothing runs without a grant",
      detail: `it ran, decision ${seen.decision}`,
    };
  }
  if (seen.decision === "granted" && !seen.isError) {
    // The control for every "it did not run" below: a granted call is seen to run.
    if (!seen.ran) {
      return {
        property: "a granted call is seen to run",
        detail: `granted, no error, no change seen; it returned ${
          JSON.stringify(seen.output.slice(0, 300))
        }`,
      };
    }
    countCase(tally, `control: a granted ${seen.call.probe.kind} call is seen`);
  }
  return null;
}

function checkExplicitDeny(seen: ObservedCall, tally: Tally): Violation | null {
  if (!seen.tool) return null;
  const denial = requiredDenial(seen.expected, seen.tool, seen.isSandboxed);
  if (denial === null) {
    if (seen.ran) countCase(tally, "control: a tool no deny names ran");
    return null;
  }
  const asked = seen.confirms.length > 0 || seen.given !== undefined;
  if (seen.decision !== "denied" || seen.ran || asked) {
    return {
      property: "an explicit deny beats every allow, answer and --yes",
      detail: `${denial}, yet decision ${seen.decision}, ran ${seen.ran}, ` +
        `asked a person ${seen.confirms.length > 0}, used an answer ${seen.given !== undefined}`,
    };
  }
  countCase(tally, `deny held (answered by ${describeAnswerer(seen.answerer)})`);
  return null;
}

function checkProtected(seen: ObservedCall, tally: Tally): Violation | null {
  const { probe } = seen.call;
  if (probe.kind !== "file" || !seen.tool || seen.tool.permission !== "edit") return null;
  const byPerson = seen.answerer.kind === "person" && seen.confirms.length === 1 &&
    PERSON_GRANTS.has(seen.answerer.answer);
  const byAnswer = seen.given?.decision === "granted";
  if (!probe.isProtected) {
    if (seen.ran && !byPerson && !byAnswer) {
      countCase(tally, "control: an unprotected write ran unasked");
    }
    return null;
  }
  if (seen.confirms.some((request) => request.protectedPath === undefined)) {
    return {
      property: "a protected path is never written without a person's answer",
      detail: `the person was asked without the protected-path warning (${probe.target})`,
    };
  }
  if ((seen.ran || seen.decision === "granted") && !byPerson && !byAnswer) {
    return {
      property: "a protected path is never written without a person's answer",
      detail: `${probe.target}: decision ${seen.decision} (${seen.audit?.reason}), ran ${seen.ran}`,
    };
  }
  countCase(
    tally,
    seen.ran ? "control: a protected path written on a person's answer" : "protected path held",
  );
  return null;
}

function checkPlan(seen: ObservedCall, tally: Tally): Violation | null {
  if (!seen.tool || !["write", "exec"].includes(seen.tool.category)) return null;
  if (!seen.expected.isBuiltinPlan) {
    if (seen.ran) countCase(tally, "control: a write or command ran outside plan");
    return null;
  }
  if (seen.decision !== "denied" || seen.ran) {
    return {
      property: "plan mode never writes or runs",
      detail:
        `${seen.tool.name} (${seen.tool.category}): decision ${seen.decision}, ran ${seen.ran}`,
    };
  }
  countCase(tally, "plan stopped a write or command");
  return null;
}

function checkUntrusted(seen: ObservedCall, tally: Tally): Violation | null {
  if (seen.isTrustedByConfig !== seen.expected.isTrusted) {
    return {
      property: "an untrusted project never loosens",
      detail: `the folder is ${seen.isTrustedByConfig ? "trusted" : "untrusted"}, ` +
        `the user's settings say ${seen.expected.isTrusted ? "trusted" : "untrusted"}`,
    };
  }
  if (!seen.explained || !seen.baseline) return null;
  const now = seen.explained.resolution.action;
  const without = seen.baseline.action;
  if (seen.expected.isTrusted) {
    if (RANK[now] > RANK[without]) countCase(tally, "control: a trusted project loosened");
    return null;
  }
  if (RANK[now] > RANK[without]) {
    return {
      property: "an untrusted project never loosens",
      detail: `${now} (${seen.explained.resolution.reason}) with the project's file, ` +
        `${without} (${seen.baseline.reason}) without it`,
    };
  }
  countCase(
    tally,
    RANK[now] < RANK[without] ? "untrusted project tightened" : "untrusted project compared",
  );
  return null;
}

/** `policy explain`'s action, the decision it promises, and its steps agree with the call. */
function checkExplain(seen: ObservedCall, tally: Tally): Violation | null {
  if (!seen.explained) {
    return seen.decision === null ? null : {
      property: "policy explain gives the same decision the call gets",
      detail: `the call did not prepare, yet decision ${seen.decision}`,
    };
  }
  const { resolution, trace } = seen.explained;
  const byRule = seen.audit?.reason.startsWith("approved:") ?? false;
  const expectedAction = byRule ? "allow" : resolution.action;
  const last = trace.findLast((step) => step.result !== "pass")?.result;
  const predicted = promisedDecision(seen, byRule);
  const problems = [
    seen.audit?.action !== expectedAction &&
    `explain says ${resolution.action} (${resolution.reason}), the call got ${seen.audit?.action} (${seen.audit?.reason})`,
    byRule && (resolution.action !== "ask" || resolution.protectedPath !== undefined) &&
    `an "always" rule allowed a call explain resolves to ${resolution.action}`,
    last !== resolution.action &&
    `explain's last deciding step says ${last}, its result ${resolution.action}`,
    seen.decision !== predicted &&
    `explain promises ${predicted} when ${
      describeAnswerer(seen.answerer)
    } answers, the call was ${seen.decision} (${seen.audit?.reason})`,
  ].filter((problem): problem is string => typeof problem === "string");
  if (problems.length) {
    return {
      property: "policy explain gives the same decision the call gets",
      detail: problems.join("; "),
    };
  }
  countCase(tally, `explain agreed (${resolution.action})`);
  return null;
}

/** The decision `policy explain` promises ("then: …") for who answers this call. */
function promisedDecision(seen: ObservedCall, byRule: boolean): Decision {
  const { action, protectedPath } = seen.explained!.resolution;
  if (action !== "ask") return action === "allow" ? "granted" : "denied";
  if (byRule) return "granted";
  if (seen.given) return seen.given.decision;
  const { answerer } = seen;
  if (answerer.kind === "person") {
    return PERSON_GRANTS.has(answerer.answer) ? "granted" : "declined";
  }
  if (answerer.answer === "park") return "parked";
  return answerer.answer === "yes" && protectedPath === undefined ? "granted" : "denied";
}

/** Who answered, as a failure report names it. */
export function describeAnswerer(answerer: Answerer): string {
  return answerer.kind === "person"
    ? `a person (${answerer.answer})`
    : answerer.answer === "park"
    ? "--park"
    : answerer.answer === "yes"
    ? "--yes"
    : "headless (no --yes)";
}
