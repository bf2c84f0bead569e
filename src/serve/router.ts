/**
 * The routes table's types and the lookup: a path no route has is 404, a known path with
 * another method 405 with `Allow`, and path parameters arrive decoded.
 * @module
 */
import { HttpError } from "./http_error.ts";

/** The methods a route may answer. */
export type RouteMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Answers one request; `params` are the pattern's groups, percent-decoded. */
export type RouteRun = (
  request: Request,
  params: Record<string, string>,
  url: URL,
) => Promise<Response>;

/** One endpoint: a method and a `URLPattern` pathname. */
export interface Route {
  method: RouteMethod;
  pattern: URLPattern;
  run: RouteRun;
}

/**
 * A route for `method` on `pathname`, a `URLPattern` pathname (`/v1/tools/:name`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const health = route("GET", "/v1/health", () => Promise.resolve(new Response("ok")));
 * assert.equal(health.pattern.test({ pathname: "/v1/health" }), true);
 * ```
 */
export function route(method: RouteMethod, pathname: string, run: RouteRun): Route {
  return { method, pattern: new URLPattern({ pathname }), run };
}

/**
 * The route answering `method` on `url`'s path, with its decoded parameters; throws HttpError
 * 404 when no route has the path, 405 when none has the method.
 */
export function findRoute(
  routes: readonly Route[],
  method: string,
  url: URL,
): { route: Route; params: Record<string, string> } {
  const matching = routes
    .map((r) => ({ route: r, match: r.pattern.exec({ pathname: url.pathname }) }))
    .filter((m) => m.match !== null);
  if (matching.length === 0) {
    throw new HttpError(
      404,
      "not_found",
      `Cannot find "${url.pathname}": no such route: see docs/serve.md for the endpoints`,
    );
  }
  const found = matching.find((m) => m.route.method === method);
  if (!found) {
    const allowed = [...new Set(matching.map((m) => m.route.method))].join(", ");
    throw new HttpError(
      405,
      "method_not_allowed",
      `Cannot ${method} "${url.pathname}": use ${allowed}`,
      { headers: { allow: allowed } },
    );
  }
  return { route: found.route, params: decodeParams(found.match!.pathname.groups) };
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
