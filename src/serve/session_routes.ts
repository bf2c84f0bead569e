/**
 * The sessions of the worktree: `GET /v1/sessions`, `GET /v1/sessions/{id}`, and the parked
 * calls of a session with their answers (`/v1/sessions/{id}/pending`, docs/approvals.md).
 * @module
 */
import { AnswerError, recordAnswer } from "../engine/mod.ts";
import {
  isSessionId,
  listSessions,
  type LoadedSession,
  loadSession,
  openSession,
  type Session,
  sessionExists,
  sessionsDir,
} from "../session/mod.ts";
import { HttpError } from "./http_error.ts";
import { jsonResponse, readJsonObject } from "./_respond.ts";
import { type Route, route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";

/** The session routes of `ctx`'s server. */
export function sessionRoutes(ctx: ServeContext): Route[] {
  const { worktree } = ctx.workspace;
  return [
    route(
      "GET",
      "/v1/sessions",
      async () => jsonResponse({ worktree, sessions: await listSessions(worktree) }),
    ),
    route("GET", "/v1/sessions/:id", (_request, { id }) => showSession(ctx, id ?? "")),
    route("GET", "/v1/sessions/:id/pending", (_request, { id }) => listPending(ctx, id ?? "")),
    route(
      "POST",
      "/v1/sessions/:id/pending/:call",
      (request, { id, call }) => answerPending(ctx, request, id ?? "", call ?? ""),
    ),
  ];
}

/** `GET /v1/sessions/:id/pending`: the calls a parked turn waits on, with any answer. */
async function listPending(ctx: ServeContext, id: string): Promise<Response> {
  using session = await existingSession(ctx, id);
  return jsonResponse({
    session: session.id,
    pending: session.parked().map((p) => ({ ...p.call, approval: p.approval })),
  });
}

/**
 * `POST /v1/sessions/:id/pending/:call` with `{"decision": "approve"|"deny", "reason"?,
 * "always_prefix"?}`: records a person's answer; `POST /v1/turns {"session", "resume": true}`
 * then continues the turn.
 */
async function answerPending(
  ctx: ServeContext,
  request: Request,
  id: string,
  call: string,
): Promise<Response> {
  const body = await readJsonObject(request);
  const decision = body.decision === "approve"
    ? "granted"
    : body.decision === "deny"
    ? "declined"
    : null;
  if (!decision) {
    throw new HttpError(
      400,
      "bad_request",
      `"decision" must be "approve" or "deny", got ${JSON.stringify(body.decision)}`,
      { param: "decision" },
    );
  }
  using session = await existingSession(ctx, id);
  using _lock = ctx.turns.locks.acquire(session.id);
  try {
    const waiting = session.parked().find((p) => p.call.call_id === call);
    const { parked, prefix } = await recordAnswer(session, decision, {
      callId: call,
      reason: typeof body.reason === "string" ? body.reason : undefined,
      alwaysPrefix: body.always_prefix === true,
      approval: waiting && ctx.workspace.registry.lookup(waiting.call.tool)?.tool.approval,
    });
    return jsonResponse({
      session: session.id,
      call_id: parked.call.call_id,
      decision,
      ...(prefix ? { always_prefix: prefix } : {}),
    });
  } catch (error) {
    if (error instanceof AnswerError) throw new HttpError(409, "conflict", error.message);
    throw error;
  }
}

async function existingSession(ctx: ServeContext, id: string): Promise<Session> {
  const { worktree, config } = ctx.workspace;
  if (!(await sessionExists(worktree, id))) {
    throw new HttpError(
      404,
      "not_found",
      `Cannot find session "${id}" in ${sessionsDir(worktree)}: GET /v1/sessions lists the ids`,
    );
  }
  return await openSession(worktree, { config, id });
}

async function showSession(ctx: ServeContext, id: string): Promise<Response> {
  const { worktree } = ctx.workspace;
  const hint = "GET /v1/sessions lists the ids";
  if (!isSessionId(id)) {
    throw new HttpError(
      400,
      "bad_request",
      `Cannot show session "${id}": not a session id: ${hint}`,
    );
  }
  let session: LoadedSession;
  try {
    session = await loadSession(worktree, id);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new HttpError(
      404,
      "not_found",
      `Cannot show session "${id}": no such session in ${sessionsDir(worktree)}: ${hint}`,
    );
  }
  const { header, messages, permissions, errors, warnings } = session;
  return jsonResponse({ id, header, messages, permissions, errors, warnings });
}
