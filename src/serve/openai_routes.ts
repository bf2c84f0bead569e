/**
 * The OpenAI-compatible face of `replio serve`: `GET /v1/models`, `GET /v1/models/{id}` and
 * `POST /v1/chat/completions`, so any OpenAI client can use replio as a tool-using model.
 * @module
 */
import { modeNames } from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import { completionBody, turnFailure } from "./chat_completion.ts";
import { findModel, listModels, type ModelSources, parseChatRequest } from "./chat_request.ts";
import { ChatStreamSink } from "./chat_stream_sink.ts";
import { jsonResponse, readJsonObject } from "./_respond.ts";
import { RoundText } from "./round_text.ts";
import { type Route, route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";
import { SSE_HEADERS } from "./sse_sink.ts";

/** The OpenAI-compatible routes of `ctx`'s server. */
export function openaiRoutes(ctx: ServeContext): Route[] {
  return [
    route("GET", "/v1/models", () => {
      return Promise.resolve(jsonResponse(listModels(modelSources(ctx), now())));
    }),
    // Model names hold slashes (replio/agent/explore): the SDKs send them escaped (%2F), curl
    // users may not, so the id is every segment after /v1/models/.
    route("GET", "/v1/models/:id+", (_request, { id }) => {
      return Promise.resolve(jsonResponse(findModel(modelSources(ctx), id ?? "", now())));
    }),
    route("POST", "/v1/chat/completions", (request) => postChat(ctx, request)),
  ];
}

function modelSources(ctx: ServeContext): ModelSources {
  return { modes: modeNames(ctx.workspace.config), agentTypes: ctx.workspace.agentTypes };
}

/** Unix seconds, as OpenAI's `created` fields count. */
function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** One turn as a chat completion: the mode is the model, the answer the assistant message. */
async function postChat(ctx: ServeContext, request: Request): Promise<Response> {
  ctx.refuseWhileClosing();
  const chat = parseChatRequest(await readJsonObject(request), modelSources(ctx));
  const id = `chatcmpl-${crypto.randomUUID()}`;
  const created = now();
  const cancel = new AbortController();
  const stream = chat.stream
    ? new ChatStreamSink({ request: chat, id, created, onCancel: () => cancel.abort() })
    : null;
  const collected = new CollectingSink();
  const { done } = await ctx.turns.start({
    prompt: chat.prompt,
    ...(chat.session === undefined ? {} : { session: chat.session }),
  }, {
    policy: ctx.policyFor(chat.mode),
    ...(chat.agentType === undefined ? {} : { agentType: chat.agentType }),
    sink: stream ?? collected,
    signal: AbortSignal.any([cancel.signal, request.signal, ctx.closing]),
  });
  if (stream) {
    done.then(
      (result) => stream.finish(result),
      (error) => {
        ctx.reportInternalError(error);
        stream.fail(error);
      },
    );
    return new Response(stream.body, { headers: SSE_HEADERS });
  }
  const result = await done;
  const failure = turnFailure(result);
  if (failure) throw failure;
  const text = new RoundText();
  for (const event of collected.events) text.add(event);
  return jsonResponse(completionBody(chat, { id, created, content: text.text }, result));
}
