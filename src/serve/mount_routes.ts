/**
 * The routes of mounted endpoints (serve_workspace.ts's `HttpMount`): GET, POST and DELETE on
 * each one's path, answered by its own handler.
 * @module
 */
import { type Route, route, type RouteMethod } from "./router.ts";
import type { HttpMount } from "./serve_workspace.ts";

/** The methods of MCP's Streamable HTTP transport, the one mount there is. */
const MOUNT_METHODS: readonly RouteMethod[] = ["GET", "POST", "DELETE"];

/** A route per method for each of `mounts`. */
export function mountRoutes(mounts: readonly HttpMount[]): Route[] {
  return mounts.flatMap((mount) =>
    MOUNT_METHODS.map((method) => route(method, mount.path, (request) => mount.answer(request)))
  );
}
