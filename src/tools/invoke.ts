/**
 * One tool call from request to result: prepare (aliases, validation) → policy → confirm →
 * run → audit. The loop, `/tool` and `replio tool` all go through here, so every call emits
 * exactly one `tool_call` and one `tool_result` whatever happens in between.
 * @module
 */
import type { Activity, Decision, Sink } from "../ui/events.ts";
import { describeActivity, plainActivity } from "./activity.ts";
import { describeRule } from "./approvals.ts";
import type { PermissionRecord } from "./audit.ts";
import type { Policy, PolicyResolution } from "./policy.ts";
import { errorResult, type PreparedCall, type ToolRegistry, type ToolResult } from "./registry.ts";
import { toolIsolation } from "./isolation.ts";
import { callFingerprint } from "./call_fingerprint.ts";
import type { Tool, ToolArgs, ToolContext } from "./types.ts";

/** What {@link invokeTool} needs. */
export interface InvokeOptions {
  registry: ToolRegistry;
  policy: Policy;
  ctx: ToolContext;
  sink: Sink;
  /** Receives every permission resolution with its outcome (the session audit). */
  audit?: (record: PermissionRecord) => void;
  /** Called with the resolved path before an `edit` tool runs on it (turn checkpoints). */
  beforeEdit?: (path: string) => Promise<void>;
  /**
   * Persists the result (the session) before its `tool_result` event is shown: a process killed
   * in between must not leave a result someone saw without its record.
   */
  persist?: (result: ToolResult) => void;
  /**
   * An answer already given for this call (a parked call approved or denied with
   * `replio approve` / `replio deny`, or one a replayed recording holds); used in place of asking
   * when the policy says ask. It gets the call's fingerprint ({@link callFingerprint}): an answer
   * stands only for the exact call a person was shown.
   */
  answer?: ((call: AnswerableCall) => Promise<GivenAnswer | undefined>) | undefined;
}

/** A call an earlier answer may cover: what it is and its fingerprint (tool + canonical args). */
export interface AnswerableCall {
  id: string;
  tool: Tool;
  args: ToolArgs;
  fingerprint: string;
  /** Set when the call writes a protected path (`.git/config`, …). */
  protectedPath?: string;
}

/** A person's answer given before the call ran, and who gave it (for the audit reason). */
export interface GivenAnswer {
  decision: "granted" | "declined";
  by: string;
  /** Why it was declined, passed on to the model. */
  note?: string | undefined;
}

/** A call as the model (or a person) made it; `arguments` may be raw JSON text. */
export interface ToolRequest {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * The result plus how the policy decided; `cancelled` means the whole turn should stop. A
 * `parked` call did not run and has no result: the turn stops to wait for a person.
 */
export interface InvokeOutcome extends ToolResult {
  decision: Decision | null;
  cancelled: boolean;
  parked?: { activity: Activity; reason: string; fingerprint: string };
  /** How the call ran: `in-process`, `worker(…)`, `bwrap(…)`, or `none` (also when it never ran). */
  isolation: string;
}

/** Runs one tool call through the policy and the registry, reporting to the sink. */
export async function invokeTool(
  options: InvokeOptions,
  request: ToolRequest,
): Promise<InvokeOutcome> {
  const { registry, policy, ctx, sink } = options;
  const parsed = parseArguments(request.arguments);
  const shownArgs = parsed.ok ? parsed.args : {};
  // Nothing ran until the tool's handler does; the handler may report how it really ran.
  let isolation = "none";
  const finish = (result: ToolResult, decision: Decision | null, cancelled = false) => {
    const found = registry.lookup(request.name);
    options.persist?.(result);
    sink.emit({
      type: "tool_result",
      id: request.id,
      name: request.name,
      output: result.output,
      is_error: result.isError,
      is_note: !result.isError && (found?.tool.note?.(result.output) ?? false),
      isolation,
    });
    return { ...result, decision, cancelled, isolation };
  };

  let call: PreparedCall;
  try {
    if (!parsed.ok) throw new SyntaxError(parsed.problem);
    call = registry.prepare(request.name, parsed.args);
  } catch (error) {
    sink.emit({
      type: "tool_call",
      id: request.id,
      name: request.name,
      arguments: shownArgs,
      activity: plainActivity(request.name, shownArgs),
      isolation,
    });
    return finish({ output: errorResult(error, ctx.signal), isError: true }, null);
  }

  // A parameter passed under its alias (cursor for offset) was still passed by the model.
  const passed = new Set(Object.keys(shownArgs).map((k) => call.tool.paramAliases?.[k] ?? k));
  // The status preview costs a file read and a diff: made only where someone will see it.
  let activity = await describeActivity(call.tool, call.args, ctx, passed, {
    status: sink.showsPreviews !== false,
  });
  const withPreview = async () => {
    if (activity.status === undefined && call.tool.status) {
      activity = await describeActivity(call.tool, call.args, ctx, passed);
    }
    return activity;
  };
  const planned = toolIsolation(call.tool, ctx.config, ctx.worktree);
  sink.emit({
    type: "tool_call",
    id: request.id,
    name: request.name,
    arguments: shownArgs,
    activity,
    isolation: planned,
  });

  let resolution;
  try {
    resolution = await policy.resolve(call.tool, call.args, ctx.services);
  } catch (error) {
    return finish({ output: errorResult(error, ctx.signal), isError: true }, null);
  }
  let decision: Decision;
  let reason = resolution.reason;
  let cancelled = false;
  let note: string | undefined;
  let edited: string | null = null;
  // Computed only where an answer may be used or recorded: asks, never allows.
  const fingerprint = resolution.action === "ask"
    ? await callFingerprint(call.tool.name, call.args)
    : "";
  const given = resolution.action === "ask"
    ? await options.answer?.({
      id: request.id,
      tool: call.tool,
      args: call.args,
      fingerprint,
      ...(resolution.protectedPath === undefined
        ? {}
        : { protectedPath: resolution.protectedPath }),
    })
    : undefined;
  if (resolution.action === "allow") {
    decision = "granted";
  } else if (resolution.action === "deny") {
    decision = "denied";
  } else if (given) {
    decision = given.decision;
    // The person's own words stay in the audit next to who answered.
    reason = `${reason}; ${given.by}${given.note ? ` ("${given.note}")` : ""}`;
    note = given.note;
  } else if (policy.headless === "park") {
    decision = "parked";
    reason = `${reason}; parked for approval`;
  } else if (policy.headless) {
    // A protected path needs a person: --yes is a blanket answer given before the call existed.
    const granted = policy.headless === "yes" && resolution.protectedPath === undefined;
    decision = granted ? "granted" : "denied";
    reason = `${reason}; headless${policy.headless === "yes" ? " --yes" : ""}`;
  } else {
    const rule = resolution.rememberable
      ? await policy.approvals?.propose(call.tool, call.args, resolution.path, policy.worktree)
      : null;
    // The key argument can be edited (a command, a URL, a message), but not a path the policy
    // already judged: an edited path would skip the worktree check and the checkpoint.
    const key = call.tool.keyArg !== call.tool.pathArg ? call.tool.keyArg : undefined;
    const editable = key && typeof call.args[key] === "string" ? call.args[key] : undefined;
    const answer = await sink.confirm({
      tool: call.tool.name,
      activity: await withPreview(),
      reason,
      ...(resolution.path === undefined ? {} : { path: resolution.path }),
      ...(resolution.protectedPath === undefined
        ? {}
        : { protectedPath: resolution.protectedPath }),
      ...(rule ? { always: describeRule(rule) } : {}),
      ...(editable !== undefined ? { editable } : {}),
    });
    if (answer === "always" && rule) {
      policy.approvals!.add(rule);
      reason = `${reason}; always: ${describeRule(rule)}`;
    }
    if (typeof answer === "object" && "declined" in answer) {
      // The person's reason goes to the model, as a parked call's `replio deny` note does.
      note = answer.declined;
      reason = `${reason}; declined by the user ("${note}")`;
    } else if (typeof answer === "object") {
      // The person wrote this call: it runs as written, checked against the schema again.
      try {
        call = registry.prepare(call.tool.name, { ...call.args, [key!]: answer.edited });
      } catch (error) {
        return finish({ output: errorResult(error, ctx.signal), isError: true }, null);
      }
      edited = answer.edited;
      reason = `${reason}; edited by the user`;
    }
    const isDeclined = answer === "no" || answer === "cancel" ||
      (typeof answer === "object" && "declined" in answer);
    decision = isDeclined ? "declined" : "granted";
    cancelled = answer === "cancel";
  }
  const record: PermissionRecord = {
    call_id: request.id,
    tool: call.tool.name,
    permission: call.tool.permission,
    action: resolution.action,
    decision,
    reason,
    ...(resolution.path === undefined ? {} : { path: resolution.path }),
    isolation: planned,
    ts: new Date().toISOString(),
  };
  options.audit?.(record);
  sink.emit({
    type: "permission",
    tool: call.tool.name,
    action: resolution.action,
    decision,
    reason,
  });

  if (decision === "parked") {
    await withPreview();
    // No tool_result: the call has not run; it runs (or is refused) when the turn resumes.
    return {
      output: "",
      isError: false,
      decision,
      cancelled: false,
      isolation: "none",
      parked: { activity, reason: resolution.reason, fingerprint },
    };
  }
  if (decision !== "granted") {
    return finish(
      {
        output: refusalText(call, decision, resolution, reason, cancelled, note),
        isError: true,
      },
      decision,
      cancelled,
    );
  }
  isolation = planned;
  if (options.beforeEdit && call.tool.permission === "edit" && resolution.path !== undefined) {
    await options.beforeEdit(resolution.path);
  }
  // Live output of this call reaches the renderers as tool_progress events, and whoever else
  // listens (replio mcp's progress notifications).
  const outer = ctx.progress;
  const tool = call.tool;
  const progress = (lines: readonly string[]) => {
    sink.emit({ type: "tool_progress", id: request.id, name: tool.name, lines });
    outer?.(lines);
  };
  const running: ToolContext = {
    ...ctx,
    progress,
    reportIsolation: (label) => isolation = label,
  };
  const result = await registry.run(call, running);
  if (edited === null) return finish(result, decision);
  // The model asked for something else: it must know what ran instead.
  const edit = `(the user edited ${call.tool.keyArg} before it ran: ${edited})`;
  return finish({ ...result, output: `${edit}\n${result.output}` }, decision);
}

function refusalText(
  call: PreparedCall,
  decision: Decision,
  resolution: PolicyResolution,
  reason: string,
  cancelled: boolean,
  note?: string,
): string {
  const protectedPath = resolution.protectedPath;
  const name = call.tool.name;
  if (resolution.denoFlags) {
    // No policy setting helps here: only the person who starts replio can add the grant.
    return `Error: ${name} is unavailable: replio was started without ${resolution.denoFlags}: ` +
      `do not retry it; use another tool (the user can restart replio with ${resolution.denoFlags})`;
  }
  if (cancelled) return "Error: cancelled by the user";
  if (decision === "declined" && note) {
    return `Error: the user declined to run ${name} (${note}): do not retry it; take another approach`;
  }
  if (decision === "declined") {
    return `Error: the user declined to run ${name}: do not retry it; ask what they want instead or take another approach`;
  }
  if (protectedPath !== undefined && decision === "denied") {
    return `Error: ${name} would write a protected path (${protectedPath}), which only a ` +
      `person can approve, and this headless run cannot ask: it was denied ` +
      `even with --yes; continue without it (the operator can make the change in the REPL)`;
  }
  if (reason.includes("headless")) {
    return `Error: ${name} needs confirmation (${
      reason.split(";")[0]
    }) and this headless run cannot ask: ` +
      `it was denied; continue without it (the operator can rerun with --yes)`;
  }
  return `Error: ${name} is denied by policy (${reason}): do not retry it; use another tool or approach`;
}

type ParsedArguments = { ok: true; args: ToolArgs } | { ok: false; problem: string };

/** Model arguments arrive as JSON text; people and tests may pass an object. */
function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null || raw === "") return { ok: true, args: {} };
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        problem:
          `invalid arguments: the JSON did not parse (${detail}): send the arguments as one JSON object`,
      };
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problem: `invalid arguments: expected a JSON object, got ${JSON.stringify(value)}`,
    };
  }
  return { ok: true, args: value as ToolArgs };
}
