/**
 * The keys of MCP servers' lifetime and results (start-up, restarts, progress, images), kept
 * beside defaults.ts and spread into its table at their place in docs/config.md.
 * @module
 */
import { Type } from "../schema/type.ts";
import { key } from "./key_spec.ts";

/** The MCP keys that follow `trusted_folders` in the table. */
export const MCP_KEYS = {
  // Off by default: a model that takes no images fails the whole request that carries one.
  mcp_images: key(
    Type.Boolean(),
    false,
    "Send images in MCP tool results to the model as image parts (needs a model that takes images); off describes them in one line",
  ),
  mcp_startup_wait: key(
    Type.Number({ minimum: 0 }),
    1,
    "Seconds a command waits for MCP servers to start; slower ones add their tools when ready",
  ),
  mcp_connect_timeout: key(
    Type.Number({ exclusiveMinimum: 0 }),
    10,
    "Seconds an MCP server may take to start, answer initialize and list its tools before it counts as failed",
  ),
  mcp_restart_backoff: key(
    Type.Number({ exclusiveMinimum: 0 }),
    1,
    "Seconds before replio restarts an MCP server whose restart failed; doubled after each further failure, up to a minute",
  ),
  // Well inside the 10 s request timeout of MCP Inspector and others that reset it on progress.
  mcp_progress_interval: key(
    Type.Number({ minimum: 0.1 }),
    2,
    "Seconds between the progress notifications `replio mcp` sends while a call runs; keep it well under the client's request timeout",
  ),
} as const;
