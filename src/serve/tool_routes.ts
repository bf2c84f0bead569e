/**
 * `GET /v1/health`, `GET /v1/tools` and `POST /v1/tools/{name}`: the server itself and single
 * tool calls through the policy, as `replio tool NAME JSON --json` runs them.
 * @module
 */
import { createToolContext, invokeTool, type PermissionRecord } from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import { HttpError } from "./http_error.ts";
import { errorBody, jsonResponse, readJsonObject } from "./_respond.ts";
import { type Route, route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";

/** The health and tool routes of `ctx`'s server. */
export function toolRoutes(ctx: ServeContext): Route[] {
  const ws = ctx.workspace;
  return [
    route("GET", "/v1/health", () =>
      Promise.resolve(jsonResponse({
        status: "ok",
        version: ctx.version,
        model: ws.provider.model,
        mode: ws.policy.mode,
        worktree: ws.worktree,
      }))),
    route("GET", "/v1/tools", (_request, _params, url) => {
      const policy = ctx.policyFor(url.searchParams.get("mode"));
      return Promise.resolve(jsonResponse(ws.listTools(policy)));
    }),
    route(
      "POST",
      "/v1/tools/:name",
      (request, { name }, url) => callTool(ctx, request, name ?? "", url),
    ),
  ];
}

async function callTool(
  ctx: ServeContext,
  request: Request,
  name: string,
  url: URL,
): Promise<Response> {
  const args = await readJsonObject(request);
  const policy = ctx.policyFor(url.searchParams.get("mode"));
  const { registry, config, worktree } = ctx.workspace;
  const permissions: PermissionRecord[] = [];
  const outcome = await invokeTool({
    registry,
    policy,
    ctx: createToolContext({
      config,
      worktree,
      // A client that hangs up or a server shutting down stops the tool (and its processes).
      signal: AbortSignal.any([request.signal, ctx.closing]),
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
  const refusal = outcome.decision === null && !registry.lookup(name)
    ? new HttpError(404, "unknown_tool", outcome.output)
    : outcome.decision === "denied" || outcome.decision === "declined"
    ? new HttpError(403, "denied", outcome.output)
    : null;
  if (refusal) return jsonResponse({ error: errorBody(refusal), ...body }, refusal.status);
  return jsonResponse(body);
}
