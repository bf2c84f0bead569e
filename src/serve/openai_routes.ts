/**
 * The OpenAI-compatible face of `replio serve`: `GET /v1/models` and
 * `POST /v1/chat/completions`, so any OpenAI client can use replio as a tool-using model.
 * @module
 */
import { modeNames } from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import {
  ChatStreamSink,
  completionBody,
  listModels,
  type ModelSources,
  parseChatRequest,
} from "./chat_completions.ts";
import { HttpError } from "./http_error.ts";
import { jsonResponse, readJsonObject } from "./_respond.ts";
import { type Route, route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";
import { SSE_HEADERS } from "./sse_sink.ts";

/** The OpenAI-compatible routes of `ctx`'s server. */
export function openaiRoutes(ctx: ServeContext): Route[] {
  return [
    route("GET", "/v1/models", () => {
      const created = Math.floor(Date.now() / 1000);
      return Promise.resolve(jsonResponse(listModels(modelSources(ctx), created)));
    }),
    route("POST", "/v1/chat/completions", (request) => postChat(ctx, request)),
  ];
}

function modelSources(ctx: ServeContext): ModelSources {
  return { modes: modeNames(ctx.workspace.config), agentTypes: ctx.workspace.agentTypes };
}

/** One turn as a chat completion: the mode is the model, the answer the assistant message. */
async function postChat(ctx: ServeContext, request: Request): Promise<Response> {
  ctx.refuseWhileClosing();
  const chat = parseChatRequest(await readJsonObject(request), modelSources(ctx));
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const cancel = new AbortController();
  const stream = chat.stream
    ? new ChatStreamSink({ request: chat, id, created, onCancel: () => cancel.abort() })
    : null;
  const { done } = await ctx.turns.start({
    prompt: chat.prompt,
    ...(chat.session === undefined ? {} : { session: chat.session }),
  }, {
    policy: ctx.policyFor(chat.mode),
    ...(chat.agentType === undefined ? {} : { agentType: chat.agentType }),
    sink: stream ?? new CollectingSink(),
    signal: AbortSignal.any([cancel.signal, request.signal, ctx.closing]),
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
      ctx.reportInternalError(error);
      stream.end();
    },
  );
  return new Response(stream.body, { headers: SSE_HEADERS });
}
