/**
 * `POST /v1/turns`: one user turn, answered as JSON when it ends or streamed as server-sent
 * events in the `replio run --output stream-json` shape.
 * @module
 */
import { CollectingSink } from "../ui/collecting_sink.ts";
import { jsonResponse, readJsonObject } from "./_respond.ts";
import { parseTurnRequest } from "./parse_turn_request.ts";
import { type Route, route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";
import { SSE_HEADERS, SseSink } from "./sse_sink.ts";

/** The turn route of `ctx`'s server. */
export function turnRoutes(ctx: ServeContext): Route[] {
  return [route("POST", "/v1/turns", (request) => postTurn(ctx, request))];
}

async function postTurn(ctx: ServeContext, request: Request): Promise<Response> {
  ctx.refuseWhileClosing();
  const turn = parseTurnRequest(await readJsonObject(request));
  const policy = ctx.policyFor(turn.mode, turn.park ? "park" : undefined);
  const cancel = new AbortController();
  const stream = wantsEventStream(request) ? new SseSink(() => cancel.abort()) : null;
  const { done } = await ctx.turns.start(turn, {
    policy,
    sink: stream ?? new CollectingSink(),
    signal: AbortSignal.any([cancel.signal, request.signal, ctx.closing]),
  });
  if (!stream) return jsonResponse(await done);
  done.then(
    () => stream.close(),
    (error) => {
      ctx.reportInternalError(error);
      const message = error instanceof Error ? error.message : String(error);
      stream.emit({ type: "error", code: "internal", message });
      stream.close();
    },
  );
  return new Response(stream.body, { headers: SSE_HEADERS });
}

function wantsEventStream(request: Request): boolean {
  return (request.headers.get("accept") ?? "").includes("text/event-stream");
}
