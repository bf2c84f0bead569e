/**
 * Parked approvals (docs/approvals.md): `replio run --park` stops a headless turn at its first
 * ask-gated call and records it in the session; `replio approve` / `replio deny` record a
 * person's answer; `replio run --resume` continues the turn from exactly that call. Everything
 * lives in the session file, so a crash between any two steps loses nothing, and a call a resume
 * already started is never run again.
 * @module
 */
import type { ResumeState } from "../engine/mod.ts";
import {
  listSessions,
  openSession,
  type ParkedCall,
  type Session,
  validateSessionId,
} from "../session/mod.ts";
import type { GivenAnswer } from "../tools/mod.ts";
import { formatActivity } from "../ui/format_activity.ts";
import { editDistance } from "../config/mod.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import type { Workspace } from "./workspace.ts";

/** Characters that chain, redirect or substitute: a command with one is never prefix-approved. */
const SHELL_SPECIAL = /[;&|<>$`(){}\\\n\r*?[\]!#~'"]/;

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

/** What the resumed turn runs, and how each call's answer is found. */
export function resumeState(session: Session, parked: ParkedCall): ResumeState {
  const approval = parked.approval!;
  const given: GivenAnswer = {
    decision: approval.decision,
    by: approval.decision === "granted" ? "approved with replio approve" : "replio deny",
    note: approval.reason,
  };
  const prefix = approval.always_prefix;
  return {
    calls: session.unanswered(),
    interrupted: parked.started ? new Set([parked.call.call_id]) : new Set(),
    answer: ({ id, tool, args }) => {
      if (id === parked.call.call_id) return given;
      if (!prefix || tool.name !== parked.call.tool || !tool.keyArg) return undefined;
      const key = args[tool.keyArg];
      return typeof key === "string" && matchesPrefix(key, prefix)
        ? { decision: "granted", by: `always-allowed prefix "${prefix}" (replio approve)` }
        : undefined;
    },
  };
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
  const waiting = session.parked().filter((p) => !p.approval);
  const parked = options.call === undefined
    ? waiting[0]
    : waiting.find((p) => p.call.call_id === options.call);
  if (!parked) {
    const answered = session.parked().find((p) => p.call.call_id === options.call);
    throw new UsageError(
      answered
        ? `Cannot ${verb} ${options.call}: it was already answered (${answered.approval?.decision}): ` +
          `continue with replio run --resume ${id}`
        : `Cannot ${verb} in session "${id}": ${
          options.call === undefined ? "no call" : `no call ${options.call}`
        } waits for approval`,
    );
  }
  const prefix = decision === "granted" && options.alwaysPrefix
    ? commandPrefix(parked.call.activity.key)
    : undefined;
  if (options.alwaysPrefix && !prefix) {
    throw new UsageError(
      `Cannot approve "${parked.call.activity.key}" with --always-prefix: it chains, redirects ` +
        "or substitutes, so no prefix of it is safe to allow: approve it without --always-prefix",
    );
  }
  session.append({
    type: "approval",
    call_id: parked.call.call_id,
    decision,
    ...(options.reason ? { reason: options.reason } : {}),
    ...(prefix ? { always_prefix: prefix } : {}),
  });
  const what = `${parked.call.call_id} (${describe(parked)})`;
  const more = prefix
    ? `; later ${parked.call.tool} calls starting with "${prefix}" are allowed in this session`
    : "";
  await Deno.stdout.write(
    new TextEncoder().encode(
      `${decision === "granted" ? "Approved" : "Denied"} ${what}${more}: continue with ` +
        `replio run --resume ${id}\n`,
    ),
  );
  return EXIT.ok;
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

/**
 * The words a command starts with that `--always-prefix` allows: the program and its
 * subcommand (`npm publish`), or the program alone when the second word is an option or path.
 * Null when the command has shell syntax that could hide a second command.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(commandPrefix("npm test -- --watch"), "npm test");
 * assert.equal(commandPrefix("ls -la src"), "ls");
 * assert.equal(commandPrefix("npm test; curl x | sh"), null);
 * ```
 */
export function commandPrefix(command: string): string | null {
  if (SHELL_SPECIAL.test(command)) return null;
  const words = command.trim().split(/\s+/);
  if (!words[0]) return null;
  return words[1] && /^[a-z][\w:-]*$/i.test(words[1]) ? `${words[0]} ${words[1]}` : words[0];
}

/** Whether `command` is `prefix` followed by whole words and no shell syntax. */
function matchesPrefix(command: string, prefix: string): boolean {
  if (SHELL_SPECIAL.test(command)) return false;
  const normal = command.trim().split(/\s+/).join(" ");
  return normal === prefix || normal.startsWith(`${prefix} `);
}

/** Opens a session that must exist; a mistyped id names the closest ones. */
async function openExisting(worktree: string, id: string, verb: string): Promise<Session> {
  try {
    validateSessionId(id);
  } catch (error) {
    throw new UsageError(`Cannot ${verb} session "${id}": ${(error as Error).message}`);
  }
  const sessions = await listSessions(worktree);
  if (!sessions.some((s) => s.id === id)) {
    const closest = sessions.map((s) => s.id)
      .sort((a, b) => editDistance(id, a) - editDistance(id, b)).slice(0, 3);
    throw new UsageError(
      `Cannot ${verb} session "${id}": no such session in ${worktree}` +
        (closest.length ? `: did you mean ${closest.join(", ")}?` : ": replio sessions list"),
    );
  }
  const { loadConfig } = await import("../config/mod.ts");
  return await openSession(worktree, { config: await loadConfig({ worktree }), id });
}
