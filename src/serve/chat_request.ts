/**
 * What an OpenAI client asks of replio: the model names it may use (each mode as
 * `replio/<mode>`, each agent type as `replio/agent/<type>`) and a chat completion request,
 * reduced to one replio turn. What a turn cannot honour is refused with 400 and the reason, not
 * silently dropped: the client's own `tools` (replio runs its own) and `n` above 1.
 * @module
 */
import { HttpError } from "./http_error.ts";

/** Every model name starts with this; the rest names a mode or `agent/<type>`. */
export const MODEL_PREFIX = "replio/";

/** After {@link MODEL_PREFIX}, this marks an agent type rather than a mode. */
const AGENT_PREFIX = "agent/";

/** What the model names of a server are made of. */
export interface ModelSources {
  modes: readonly string[];
  agentTypes: readonly string[];
}

/** A chat completion request, reduced to what a replio turn needs. */
export interface ChatRequest {
  /** The model as the client named it, echoed in every response. */
  model: string;
  /** The mode of the turn; absent for an agent type, which runs in the server's mode. */
  mode?: string;
  agentType?: string;
  prompt: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
  /** `replio.session`: continue this replio session instead of starting a new one. */
  session?: string;
}

/**
 * Every model name a server answers to: its modes, then its agent types.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   modelNames({ modes: ["default", "plan"], agentTypes: ["explore"] }),
 *   ["replio/default", "replio/plan", "replio/agent/explore"],
 * );
 * ```
 */
export function modelNames(sources: ModelSources): string[] {
  return [
    ...sources.modes.map((mode) => MODEL_PREFIX + mode),
    ...sources.agentTypes.map((type) => `${MODEL_PREFIX}${AGENT_PREFIX}${type}`),
  ];
}

/**
 * The `GET /v1/models` body: one model per mode and agent type.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(listModels({ modes: ["default"], agentTypes: [] }, 7).data, [
 *   { id: "replio/default", object: "model", created: 7, owned_by: "replio" },
 * ]);
 * ```
 */
export function listModels(sources: ModelSources, created: number) {
  return {
    object: "list",
    data: modelNames(sources).map((id) => modelObject(id, created)),
  };
}

/**
 * The `GET /v1/models/{id}` body; throws HttpError 404 `model_not_found` for a name the server
 * does not answer to.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(findModel({ modes: ["plan"], agentTypes: [] }, "replio/plan", 7), {
 *   id: "replio/plan",
 *   object: "model",
 *   created: 7,
 *   owned_by: "replio",
 * });
 * ```
 */
export function findModel(sources: ModelSources, id: string, created: number) {
  checkModel(sources, id);
  return modelObject(id, created);
}

function modelObject(id: string, created: number) {
  return { id, object: "model", created, owned_by: "replio" };
}

/** Throws HttpError 404 `model_not_found` unless `model` is one of the server's names. */
function checkModel(sources: ModelSources, model: unknown): asserts model is string {
  const names = modelNames(sources);
  if (typeof model === "string" && names.includes(model)) return;
  throw new HttpError(
    404,
    "model_not_found",
    `Cannot use model ${JSON.stringify(model ?? null)}: replio serves ${
      names.map((m) => `"${m}"`).join(", ")
    }: pick one (GET /v1/models lists them)`,
    { param: "model" },
  );
}

/** Reads a chat completion body; throws HttpError 400, or 404 for an unknown model. */
export function parseChatRequest(
  body: Record<string, unknown>,
  sources: ModelSources,
): ChatRequest {
  const { model } = body;
  checkModel(sources, model);
  refuseUnservable(body);
  const name = model.slice(MODEL_PREFIX.length);
  const type = name.startsWith(AGENT_PREFIX) ? name.slice(AGENT_PREFIX.length) : undefined;
  // A mode may itself be called "agent/x"; a mode listed first wins, as in modelNames.
  const target = type !== undefined && !sources.modes.includes(name)
    ? { agentType: type }
    : { mode: name };
  const messages = readMessages(body.messages);
  const extension = (body.replio ?? {}) as { session?: unknown };
  const streamOptions = (body.stream_options ?? {}) as { include_usage?: unknown };
  return {
    model,
    ...target,
    prompt: promptOf(messages),
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    ...(typeof extension.session === "string" ? { session: extension.session } : {}),
  };
}

/**
 * Refuses what one replio turn cannot do, rather than answering as if it had: the client's own
 * tools (replio would never hand a call back) and several answers to one request.
 */
function refuseUnservable(body: Record<string, unknown>): void {
  for (const field of ["tools", "functions"]) {
    const value = body[field];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
      continue;
    }
    throw new HttpError(
      400,
      "unsupported_parameter",
      `Cannot use "${field}": replio runs its own tools (GET /v1/tools lists them) and never ` +
        `hands a tool call back to the client: leave "${field}" out, or send the request to ` +
        `the model behind replio`,
      { param: field },
    );
  }
  for (const field of ["tool_choice", "function_call"]) {
    const value = body[field];
    if (value === undefined || value === null || value === "auto") continue;
    throw new HttpError(
      400,
      "unsupported_value",
      `Cannot use "${field}": ${JSON.stringify(value)}: replio decides itself which of its ` +
        `tools to call: leave "${field}" out or send "auto"`,
      { param: field },
    );
  }
  const { n } = body;
  if (n === undefined || n === null || n === 1) return;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
    throw new HttpError(
      400,
      "invalid_value",
      `Cannot use "n": ${JSON.stringify(n)}: it must be a whole number of answers: send 1 or ` +
        `leave it out`,
      { param: "n" },
    );
  }
  throw new HttpError(
    400,
    "unsupported_value",
    `Cannot give ${n} answers ("n": ${n}): a replio turn runs tools and may change files, so ` +
      `each request runs one turn with one answer: send "n": 1 or leave it out, and repeat the ` +
      `request for another answer`,
    { param: "n" },
  );
}

interface ChatMessage {
  role: string;
  content: string;
}

function readMessages(raw: unknown): ChatMessage[] {
  const bad = (detail: string) =>
    new HttpError(
      400,
      "bad_request",
      `Cannot read "messages": ${detail}: send [{"role": "user", "content": "..."}]`,
      { param: "messages" },
    );
  if (!Array.isArray(raw) || raw.length === 0) throw bad("expected a non-empty array");
  return raw.map((message, i) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (typeof role !== "string") throw bad(`message ${i} has no "role"`);
    return { role, content: contentText(content) };
  });
}

/** Content may be a string or an array of parts; only text parts carry meaning to replio. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    (part as { type?: unknown; text?: unknown }).type === "text"
      ? String((part as { text: unknown }).text)
      : ""
  ).filter(Boolean).join("\n");
}

/**
 * The turn's prompt: the last user message. An OpenAI client resends the whole conversation
 * each time, so earlier messages (and its system instructions) come first as quoted context.
 */
function promptOf(messages: ChatMessage[]): string {
  const last = messages.at(-1)!;
  if (last.role !== "user" || !last.content.trim()) {
    throw new HttpError(
      400,
      "bad_request",
      `Cannot start a turn: the last message must be a user message with text, got role ` +
        `"${last.role}": end "messages" with the user's request`,
      { param: "messages" },
    );
  }
  const earlier = messages.slice(0, -1).filter((m) => m.content.trim());
  if (earlier.length === 0) return last.content;
  const context = earlier.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
  return `The conversation so far, as the client sent it:\n\n${context}\n\n[user]\n${last.content}`;
}
