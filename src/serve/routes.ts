/**
 * Every endpoint of `replio serve`, as one table. A new transport or API mounts here: write a
 * module whose function takes the {@link ServeContext} and returns its routes (as
 * tool_routes.ts does), and add its call below. The server checks access (token, origin, host)
 * before any route runs, and turns a thrown HttpError into its JSON answer.
 * @module
 */
import { mountRoutes } from "./mount_routes.ts";
import { openaiRoutes } from "./openai_routes.ts";
import type { Route } from "./router.ts";
import type { ServeContext } from "./serve_context.ts";
import { sessionRoutes } from "./session_routes.ts";
import { toolRoutes } from "./tool_routes.ts";
import { turnRoutes } from "./turn_routes.ts";

/** The routes of a server with context `ctx`. */
export function serveRoutes(ctx: ServeContext): Route[] {
  return [
    ...toolRoutes(ctx),
    ...turnRoutes(ctx),
    ...sessionRoutes(ctx),
    // The OpenAI-compatible face: any OpenAI client can use replio as a tool-using model.
    ...openaiRoutes(ctx),
    // Endpoints src/cli hands in: the MCP server at /mcp (docs/serve.md).
    ...mountRoutes(ctx.workspace.mounts ?? []),
  ];
}
