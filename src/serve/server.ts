/**
 * The HTTP API of `replio serve` (docs/serve.md): health, tools, tool calls through the policy,
 * turns as JSON or server-sent events, and sessions. Every run is headless, as `replio run`:
 * ask-gated calls get the server's `--yes`/`--no` answer and `ask` has no one to answer.
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { type Config, ConfigError } from "../config/mod.ts";
import {
  type Agent,
  AnswerError,
  recordAnswer,
  resumeState,
  type TurnResult,
} from "../engine/mod.ts";
import type { Provider } from "../providers/mod.ts";
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
import {
  createToolContext,
  type HeadlessAnswer,
  invokeTool,
  modeNames,
  type PermissionRecord,
  type Policy,
  ToolPolicy,
  type ToolRegistry,
} from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import type { Sink } from "../ui/events.ts";
import {
  ChatStreamSink,
  completionBody,
  listModels,
  parseChatRequest,
} from "./chat_completions.ts";
import { HttpError } from "./http_error.ts";
import { isLoopbackHost } from "./is_loopback_host.ts";
import { parseTurnRequest, type TurnRequest } from "./parse_turn_request.ts";
import { errorResponse, jsonResponse, readJsonObject } from "./_respond.ts";
import { SessionLocks } from "./session_locks.ts";
import { SseSink } from "./sse_sink.ts";

/** What the server works on; src/cli builds it from the workspace. */
export interface ServeWorkspace {
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  /** The server's mode, carrying the headless answer (`--yes` or not) for ask-gated calls. */
  policy: Policy;
  provider: Provider;
  /** Agent types a chat completion may name as its model (`replio/agent/<type>`). */
  agentTypes: readonly string[];
  /**
   * The root agent of one turn, wired as `replio run` wires it (delegate, agent types); with
   * `agentType`, running as that type.
   */
  createAgent(
    parts: { session: Session; sink: Sink; policy: Policy; agentType?: string },
  ): Agent | Promise<Agent>;
  /** The listing `replio tools --json` prints, under `policy`. */
  listTools(policy: Policy): unknown;
}

/** Options of {@link startServer}. */
export interface ServeOptions {
  hostname: string;
  /** 0 picks any free port. */
  port: number;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string | undefined;
  version: string;
  workspace: ServeWorkspace;
  /** Receives errors answered with 500, for the operator's log. */
  onInternalError?: (error: unknown) => void;
}

type RouteRun = (request: Request, params: Record<string, string>, url: URL) => Promise<Response>;

interface Route {
  method: "GET" | "POST";
  pattern: URLPattern;
  run: RouteRun;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

/**
 * Starts listening on `options.hostname:options.port`; throws `Deno.errors.AddrInUse` when the
 * port is taken.
 * @example
 * ```ts ignore
 * await using server = startServer({ hostname: "127.0.0.1", port: 0, version, workspace });
 * console.log(server.url); // http://127.0.0.1:41234
 * ```
 */
export function startServer(options: ServeOptions): ReplioServer {
  return new ReplioServer(options);
}

/** A listening API server; made by {@link startServer}, stopped by {@link ReplioServer.shutdown}. */
export class ReplioServer implements AsyncDisposable {
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  /** Settles when {@link shutdown} has finished: every turn saved, every response ended. */
  readonly finished: Promise<void>;
  readonly #finish = Promise.withResolvers<void>();
  readonly #options: ServeOptions;
  readonly #ws: ServeWorkspace;
  readonly #routes: Route[];
  readonly #locks = new SessionLocks();
  /** Aborted on shutdown: running turns and tool calls are cancelled through it. */
  readonly #closing = new AbortController();
  /** Turns still running, settled or not; a turn outlives its response after a disconnect. */
  readonly #running = new Set<Promise<unknown>>();
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  #stopped: Promise<void> | null = null;

  constructor(options: ServeOptions) {
    this.#options = options;
    this.#ws = options.workspace;
    this.#routes = [
      route("GET", "/v1/health", () => this.#health()),
      route("GET", "/v1/tools", (_request, _params, url) => this.#listTools(url)),
      route(
        "POST",
        "/v1/tools/:name",
        (request, { name }, url) => this.#callTool(request, name ?? "", url),
      ),
      route("POST", "/v1/turns", (request) => this.#postTurn(request)),
      route("GET", "/v1/sessions", () => this.#listSessions()),
      route("GET", "/v1/sessions/:id", (_request, { id }) => this.#showSession(id ?? "")),
      route("GET", "/v1/sessions/:id/pending", (_request, { id }) => this.#pending(id ?? "")),
      route(
        "POST",
        "/v1/sessions/:id/pending/:call",
        (request, { id, call }) => this.#answerPending(request, id ?? "", call ?? ""),
      ),
      // The OpenAI-compatible face: any OpenAI client can use replio as a tool-using model.
      route("GET", "/v1/models", () => this.#listModels()),
      route("POST", "/v1/chat/completions", (request) => this.#postChat(request)),
    ];
    this.#server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen() {},
      onError: (error) => this.#internalError(error),
    }, (request) => this.#answer(request));
    const { hostname, port } = this.#server.addr;
    this.url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
    this.finished = this.#finish.promise;
  }

  /**
   * Stops accepting, cancels running turns and tool calls, and resolves once every turn has
   * saved its session (its `turn_end` written) and every response has ended.
   */
  shutdown(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#closing.abort();
      await this.#server.shutdown();
      await Promise.all(this.#running);
      this.#finish.resolve();
    })();
    return this.#stopped;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.shutdown();
  }

  async #answer(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      this.#checkAccess(request, url);
      const matching = this.#routes
        .map((r) => ({ route: r, match: r.pattern.exec({ pathname: url.pathname }) }))
        .filter((m) => m.match !== null);
      if (matching.length === 0) {
        throw new HttpError(
          404,
          "not_found",
          `Cannot find "${url.pathname}": no such route: see docs/serve.md for the endpoints`,
        );
      }
      const found = matching.find((m) => m.route.method === request.method);
      if (!found) {
        const allowed = matching.map((m) => m.route.method).join(", ");
        throw new HttpError(
          405,
          "method_not_allowed",
          `Cannot ${request.method} "${url.pathname}": use ${allowed}`,
          { allow: allowed },
        );
      }
      return await found.route.run(request, decodeParams(found.match!.pathname.groups), url);
    } catch (error) {
      if (error instanceof HttpError) return errorResponse(error);
      return this.#internalError(error);
    }
  }

  #internalError(error: unknown): Response {
    this.#options.onInternalError?.(error);
    return errorResponse(error);
  }

  /**
   * With a token, the token is the whole check. Without one only local programs may call:
   * a web page would send `Origin` (cross-site posts) or a foreign `Host` (DNS rebinding).
   */
  #checkAccess(request: Request, url: URL): void {
    const { token } = this.#options;
    if (token === undefined) {
      const origin = request.headers.get("origin");
      if (origin !== null) {
        throw new HttpError(
          403,
          "forbidden",
          `Cannot answer a request from the web page "${origin}": without a token the API ` +
            `answers local programs only: call it without an Origin header, or set REPLIO_SERVE_TOKEN`,
        );
      }
      if (!isLoopbackHost(url.hostname)) {
        throw new HttpError(
          403,
          "forbidden",
          `Cannot answer a request for host "${url.host}": without a token the API answers ` +
            `loopback names only: call ${this.url}, or set REPLIO_SERVE_TOKEN`,
        );
      }
      return;
    }
    const header = request.headers.get("authorization") ?? "";
    const scheme = /^(\S+)\s/.exec(header)?.[1];
    if (scheme !== undefined && scheme.toLowerCase() !== "bearer") {
      throw new HttpError(
        401,
        "unauthorized",
        `Cannot answer: the Authorization header uses the "${scheme}" scheme, and this API ` +
          `takes only a bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
        { "www-authenticate": 'Bearer realm="replio"' },
      );
    }
    const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (given === undefined || !isSameSecret(given, token)) {
      throw new HttpError(
        401,
        "unauthorized",
        `Cannot answer: ${given === undefined ? "no" : "a wrong"} bearer token: ` +
          `send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
        { "www-authenticate": 'Bearer realm="replio"' },
      );
    }
  }

  /** The server's policy, or one for `mode` with the same headless answer. */
  #policyFor(mode: string | null | undefined, headless?: HeadlessAnswer): Policy {
    const { config, worktree, policy } = this.#ws;
    if (!mode && !headless) return policy;
    try {
      return new ToolPolicy({
        config,
        worktree,
        mode: mode || policy.mode,
        headless: headless ?? policy.headless,
      });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new HttpError(400, "bad_request", error.message);
    }
  }

  #health(): Promise<Response> {
    return Promise.resolve(jsonResponse({
      status: "ok",
      version: this.#options.version,
      model: this.#ws.provider.model,
      mode: this.#ws.policy.mode,
      worktree: this.#ws.worktree,
    }));
  }

  #listTools(url: URL): Promise<Response> {
    const policy = this.#policyFor(url.searchParams.get("mode"));
    return Promise.resolve(jsonResponse(this.#ws.listTools(policy)));
  }

  async #callTool(request: Request, name: string, url: URL): Promise<Response> {
    const args = await readJsonObject(request);
    const policy = this.#policyFor(url.searchParams.get("mode"));
    const { registry, config, worktree } = this.#ws;
    const permissions: PermissionRecord[] = [];
    const outcome = await invokeTool({
      registry,
      policy,
      ctx: createToolContext({
        config,
        worktree,
        // A client that hangs up or a server shutting down stops the tool (and its processes).
        signal: AbortSignal.any([request.signal, this.#closing.signal]),
      }),
      sink: new CollectingSink(),
      audit: (record) => permissions.push(record),
    }, { id: "serve_1", name, arguments: args });
    const body = {
      tool: name,
      output: outcome.output,
      is_error: outcome.isError,
      decision: outcome.decision,
      isolation: outcome.isolation,
      permissions,
    };
    if (outcome.decision === null && !registry.lookup(name)) {
      return jsonResponse(
        { error: { code: "unknown_tool", message: outcome.output }, ...body },
        404,
      );
    }
    if (outcome.decision === "denied" || outcome.decision === "declined") {
      return jsonResponse({ error: { code: "denied", message: outcome.output }, ...body }, 403);
    }
    return jsonResponse(body);
  }

  #refuseWhileClosing(): void {
    if (this.#closing.signal.aborted) {
      throw new HttpError(
        503,
        "shutting_down",
        "Cannot start a turn: the server is shutting down: start it again and retry",
      );
    }
  }

  async #postTurn(request: Request): Promise<Response> {
    this.#refuseWhileClosing();
    const turn = parseTurnRequest(await readJsonObject(request));
    const policy = this.#policyFor(turn.mode, turn.park ? "park" : undefined);
    const cancel = new AbortController();
    const stream = wantsEventStream(request) ? new SseSink(() => cancel.abort()) : null;
    const { done } = await this.#startTurn(turn, {
      policy,
      sink: stream ?? new CollectingSink(),
      signal: AbortSignal.any([cancel.signal, request.signal, this.#closing.signal]),
    });
    if (!stream) return jsonResponse(await done);
    done.then(
      () => stream.close(),
      (error) => {
        this.#options.onInternalError?.(error);
        const message = error instanceof Error ? error.message : String(error);
        stream.emit({ type: "error", code: "internal", message });
        stream.close();
      },
    );
    return new Response(stream.body, { headers: SSE_HEADERS });
  }

  #modelSources() {
    return { modes: modeNames(this.#ws.config), agentTypes: this.#ws.agentTypes };
  }

  #listModels(): Promise<Response> {
    const created = Math.floor(Date.now() / 1000);
    return Promise.resolve(jsonResponse(listModels(this.#modelSources(), created)));
  }

  /** One turn as a chat completion: the mode is the model, the answer the assistant message. */
  async #postChat(request: Request): Promise<Response> {
    this.#refuseWhileClosing();
    const chat = parseChatRequest(await readJsonObject(request), this.#modelSources());
    const id = `chatcmpl-${crypto.randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const cancel = new AbortController();
    const stream = chat.stream
      ? new ChatStreamSink({ request: chat, id, created, onCancel: () => cancel.abort() })
      : null;
    const { done } = await this.#startTurn({
      prompt: chat.prompt,
      ...(chat.session === undefined ? {} : { session: chat.session }),
    }, {
      policy: this.#policyFor(chat.mode),
      ...(chat.agentType === undefined ? {} : { agentType: chat.agentType }),
      sink: stream ?? new CollectingSink(),
      signal: AbortSignal.any([cancel.signal, request.signal, this.#closing.signal]),
    });
    if (!stream) {
      const result = await done;
      if (result.status === "error") {
        // An OpenAI client treats any 200 as an answer; a failed turn must not look like one.
        throw new HttpError(
          502,
          "turn_failed",
          `Cannot answer: the turn failed: ${
            result.errors.map((e) => e.message).join("; ")
          }: see session "${result.session}" (GET /v1/sessions/${result.session})`,
        );
      }
      return jsonResponse(completionBody(chat, id, created, result));
    }
    done.then(
      (result) => stream.finish(result),
      (error) => {
        this.#options.onInternalError?.(error);
        stream.end();
      },
    );
    return new Response(stream.body, { headers: SSE_HEADERS });
  }

  /**
   * Opens the session (one turn at a time in it) and starts the turn; `done` settles when the
   * turn has saved and released its session, whether or not anyone still listens.
   */
  async #startTurn(
    turn: TurnRequest,
    parts: { policy: Policy; sink: Sink; signal: AbortSignal; agentType?: string },
  ): Promise<{ done: Promise<TurnResult> }> {
    const { worktree, config, provider } = this.#ws;
    // A named session is reserved before its file is read: a second turn must not resume it.
    const reserved = turn.session === undefined ? null : this.#locks.acquire(turn.session);
    let session: Session;
    try {
      session = await openSession(worktree, {
        config,
        id: turn.session,
        model: provider.model,
        onUnwritable: (message) => parts.sink.emit({ type: "note", message }),
      });
    } catch (error) {
      reserved?.[Symbol.dispose]();
      throw error;
    }
    const lock = reserved ?? this.#locks.acquire(session.id);
    const run = async () => {
      using _lock = lock;
      using _session = session;
      parts.sink.emit({ type: "session", id: session.id });
      const agent = await this.#ws.createAgent({
        session,
        sink: parts.sink,
        policy: parts.policy,
        ...(parts.agentType === undefined ? {} : { agentType: parts.agentType }),
      });
      if (!turn.resume) return withPending(await agent.runTurn(turn.prompt, parts.signal), session);
      const parked = session.parked()[0];
      if (!parked?.approval) {
        throw new HttpError(
          409,
          "not_answered",
          parked
            ? `Cannot resume session "${session.id}": call ${parked.call.call_id} has no answer ` +
              `yet: POST /v1/sessions/${session.id}/pending/${parked.call.call_id} first`
            : `Cannot resume session "${session.id}": no call in it waits for approval`,
        );
      }
      return withPending(
        await agent.resumeTurn(resumeState(session, parked), parts.signal),
        session,
      );
    };
    const done = run();
    const settled = done.then(() => {}, () => {});
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return { done };
  }

  async #listSessions(): Promise<Response> {
    const { worktree } = this.#ws;
    return jsonResponse({ worktree, sessions: await listSessions(worktree) });
  }

  /** `GET /v1/sessions/:id/pending`: the calls a parked turn waits on, with any answer. */
  async #pending(id: string): Promise<Response> {
    using session = await this.#existingSession(id);
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
  async #answerPending(request: Request, id: string, call: string): Promise<Response> {
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
      );
    }
    using session = await this.#existingSession(id);
    using _lock = this.#locks.acquire(session.id);
    try {
      const waiting = session.parked().find((p) => p.call.call_id === call);
      const { parked, prefix } = await recordAnswer(session, decision, {
        callId: call,
        reason: typeof body.reason === "string" ? body.reason : undefined,
        alwaysPrefix: body.always_prefix === true,
        approval: waiting && this.#ws.registry.lookup(waiting.call.tool)?.tool.approval,
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

  async #existingSession(id: string): Promise<Session> {
    const { worktree, config } = this.#ws;
    if (!(await sessionExists(worktree, id))) {
      throw new HttpError(
        404,
        "not_found",
        `Cannot find session "${id}" in ${sessionsDir(worktree)}: GET /v1/sessions lists the ids`,
      );
    }
    return await openSession(worktree, { config, id });
  }

  async #showSession(id: string): Promise<Response> {
    const { worktree } = this.#ws;
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
}

function route(method: Route["method"], pathname: string, run: RouteRun): Route {
  return { method, pattern: new URLPattern({ pathname }), run };
}

function decodeParams(groups: Record<string, string | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [key, value] of Object.entries(groups)) {
    if (value === undefined) continue;
    try {
      params[key] = decodeURIComponent(value);
    } catch (error) {
      if (!(error instanceof URIError)) throw error;
      throw new HttpError(400, "bad_request", `Cannot decode "${value}" in the path: escape it`);
    }
  }
  return params;
}

function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").includes("text/event-stream");
}

/** Compares digests so the time taken says nothing about how much of the token matched. */
function isSameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A parked turn's result names the call it waits on, as `replio run --output json` does. */
function withPending(result: TurnResult, session: Session): TurnResult {
  if (result.status !== "parked") return result;
  const pending = session.parked().at(-1)?.call;
  return pending ? { ...result, pending } as TurnResult : result;
}
