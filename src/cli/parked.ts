/**
 * Parked approvals (docs/approvals.md): `replio run --park` stops a headless turn at its first
 * ask-gated call and records it in the session; `replio approve` / `replio deny` record a
 * person's answer; `replio run --resume` continues the turn from exactly that call. Everything
 * lives in the session file, so a crash between any two steps loses nothing, and a call a resume
 * already started is never run again.
 * @module
 */
import { AnswerError, recordAnswer, type RecordedAnswer } from "../engine/mod.ts";
import {
  closestSessions,
  openSession,
  type ParkedCall,
  type Session,
  sessionExists,
  validateSessionId,
} from "../session/mod.ts";
import type { Tool } from "../tools/mod.ts";
import { formatActivity } from "../ui/format_activity.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import type { Workspace } from "./workspace.ts";

/** The session's parked call, answered; a usage error (exit 2) when there is nothing to resume. */
export async function parkedSession(ws: Workspace, id: string): Promise<ParkedCall> {
  using session = await openExisting(ws.worktree, id, "resume");
  const parked = session.parked()[0];
  if (!parked) {
    throw new UsageError(
      `Cannot resume session "${id}": no call in it waits for approval: start a new turn with ` +
        `replio run --session ${id} PROMPT`,
    );
  }
  if (!parked.approval) {
    throw new UsageError(
      `Cannot resume session "${id}": call ${parked.call.call_id} (${
        describe(parked)
      }) has no answer yet: run replio approve ${id} or replio deny ${id} --call ` +
        `${parked.call.call_id}`,
    );
  }
  return parked;
}

/** Options of `replio approve` and `replio deny`. */
export interface AnswerOptions {
  call?: string;
  alwaysPrefix?: boolean;
  reason?: string;
  path?: string;
}

/** `replio approve ID` / `replio deny ID`: records the answer for the parked call. */
export async function answerParked(
  decision: "granted" | "declined",
  id: string,
  options: AnswerOptions,
): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const verb = decision === "granted" ? "approve" : "deny";
  using session = await openExisting(worktree, id, verb);
  let answered: RecordedAnswer;
  try {
    answered = await recordAnswer(session, decision, {
      callId: options.call,
      reason: options.reason,
      alwaysPrefix: options.alwaysPrefix ?? false,
      ...(options.alwaysPrefix ? { approval: await bundledApproval(session, options.call) } : {}),
    });
  } catch (error) {
    if (error instanceof AnswerError) throw new UsageError(error.message);
    throw error;
  }
  const { parked, prefix, scope } = answered;
  const what = `${parked.call.call_id} (${describe(parked)})`;
  const covered = scope ?? `commands starting with "${prefix}"`;
  const more = prefix
    ? `; later ${parked.call.tool} ${covered} are allowed for the rest of this turn`
    : "";
  await Deno.stdout.write(
    new TextEncoder().encode(
      `${decision === "granted" ? "Approved" : "Denied"} ${what}${more}: continue with ` +
        `replio run --resume ${id}\n`,
    ),
  );
  return EXIT.ok;
}

/**
 * The rule hook of the tool a parked call names, from the bundled tools: the same parser the
 * REPL's `a` uses decides which prefix is safe. Only bundled tools have one (run_command); no
 * MCP server or plugin is started to answer a call.
 */
async function bundledApproval(
  session: Session,
  callId: string | undefined,
): Promise<Tool["approval"]> {
  const waiting = session.parked().filter((p) => !p.approval);
  const parked = callId === undefined ? waiting[0] : waiting.find((p) => p.call.call_id === callId);
  if (!parked) return undefined;
  const { CORE_PLUGIN } = await import("../agents/mod.ts");
  const { createRegistry } = await import("../plugins/mod.ts");
  return createRegistry([CORE_PLUGIN]).lookup(parked.call.tool)?.tool.approval;
}

/** The line printed when a run parks: what waits, and the commands that answer it. */
export function parkedNotice(sessionId: string, call: ParkedCall["call"]): string {
  const shown = formatActivity(call.activity, { glyphLines: true, glyphParams: true }, call.tool);
  return `Parked: ${shown} needs approval (${call.reason}).\n` +
    `  approve: replio approve ${sessionId} --call ${call.call_id}\n` +
    `  deny:    replio deny ${sessionId} --call ${call.call_id} --reason "…"\n` +
    `  then:    replio run --resume ${sessionId}\n`;
}

function describe(parked: ParkedCall): string {
  const key = parked.call.activity.key;
  return key ? `${parked.call.tool} ${JSON.stringify(key)}` : parked.call.tool;
}

/** Opens a session that must exist; a mistyped id names the closest ones. */
async function openExisting(worktree: string, id: string, verb: string): Promise<Session> {
  try {
    validateSessionId(id);
  } catch (error) {
    throw new UsageError(`Cannot ${verb} session "${id}": ${(error as Error).message}`);
  }
  if (!(await sessionExists(worktree, id))) {
    const closest = (await closestSessions(worktree, id)).slice(0, 3).map((s) => s.id);
    throw new UsageError(
      `Cannot ${verb} session "${id}": no such session in ${worktree}` +
        (closest.length ? `: did you mean ${closest.join(", ")}?` : ": replio sessions list"),
    );
  }
  const { loadConfig } = await import("../config/mod.ts");
  return await openSession(worktree, { config: await loadConfig({ worktree }), id });
}
