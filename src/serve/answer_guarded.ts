/**
 * One request to replio's HTTP servers (`replio serve`, `replio mcp --http`): the access check
 * first (token, Origin, Host, preflight), then the route; every failure becomes its JSON answer.
 * @module
 */
import { checkAccess } from "./check_access.ts";
import { HttpError } from "./http_error.ts";
import { errorResponse } from "./_respond.ts";
import { type HttpListener, listenHttp } from "./http_listener.ts";
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

/** Where {@link listenGuarded} listens and what it serves. */
export interface GuardedListenOptions {
  hostname: string;
  port: number;
  routes: readonly Route[];
  token?: string | undefined;
  onInternalError?: ((error: unknown) => void) | undefined;
}

/**
 * Listens and answers every request through {@link answerGuarded}; the server's own URL (which
 * the Origin check compares with) is known once the port is bound.
 */
export async function listenGuarded(
  options: GuardedListenOptions,
): Promise<{ listener: HttpListener; url: string }> {
  let url = "";
  const listener = await listenHttp({
    hostname: options.hostname,
    port: options.port,
    handler: (request) =>
      answerGuarded(request, {
        routes: options.routes,
        token: options.token,
        serverUrl: url,
        onInternalError: options.onInternalError,
      }),
    onError: (error) => options.onInternalError?.(error),
  });
  const { hostname, port } = listener;
  url = `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  return { listener, url };
}
