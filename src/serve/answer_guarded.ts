/**
 * One request to replio's HTTP servers (`replio serve`, `replio mcp --http`): the access check
 * first (token, Origin, Host, preflight), then the route; every failure becomes its JSON answer.
 * @module
 */
import { checkAccess } from "./check_access.ts";
import { HttpError } from "./http_error.ts";
import { errorResponse } from "./_respond.ts";
import { findRoute, type Route } from "./router.ts";

/** What {@link answerGuarded} needs of its server. */
export interface GuardedServer {
  routes: readonly Route[];
  /** The bearer token every request must carry; none means loopback programs only. */
  token: string | undefined;
  /** `http://HOST:PORT` as bound. */
  serverUrl: string;
  /** Receives errors answered with 500, for the operator's log. */
  onInternalError?: ((error: unknown) => void) | undefined;
}

/** Checks access, finds the route and runs it; every failure becomes its JSON error answer. */
export async function answerGuarded(request: Request, server: GuardedServer): Promise<Response> {
  try {
    const url = new URL(request.url);
    checkAccess(request, url, { token: server.token, serverUrl: server.serverUrl });
    const { route, params } = findRoute(server.routes, request.method, url);
    return await route.run(request, params, url);
  } catch (error) {
    if (!(error instanceof HttpError)) server.onInternalError?.(error);
    return errorResponse(error);
  }
}
