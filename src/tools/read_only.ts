/**
 * Which tools change nothing, for read-only modes (`plan`, or any mode with `read_only: true`).
 * A tool loaded from outside replio carries its own evidence (an MCP server's `readOnlyHint`,
 * what a plugin's Worker may do); a bundled tool is judged by the permission key it declares.
 * @module
 */
import type { PermissionKey, ReadOnlyEvidence, ToolSpec } from "./types.ts";

/** Every key decided here, so a new key cannot be added without saying whether it only reads. */
const BY_PERMISSION_KEY: Readonly<Record<PermissionKey, ReadOnlyEvidence>> = {
  read: { isReadOnly: true, reason: "permission read only reads" },
  list: { isReadOnly: true, reason: "permission list only lists folders" },
  web: { isReadOnly: true, reason: "permission web only reads the web" },
  ask: { isReadOnly: true, reason: "permission ask only asks" },
  // The sub-agent's policy is the intersection with this one: it is read-only too.
  delegate: { isReadOnly: true, reason: "permission delegate keeps sub-agents in this mode" },
  edit: { isReadOnly: false, reason: "permission edit writes files" },
  bash: { isReadOnly: false, reason: "permission bash runs commands" },
  mcp: { isReadOnly: false, reason: "permission mcp proves nothing" },
};

/**
 * Whether `tool` is read-only, and why: its own evidence, else its permission key's.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(readOnlyEvidence({ permission: "bash" }), {
 *   isReadOnly: false,
 *   reason: "permission bash runs commands",
 * });
 * ```
 */
export function readOnlyEvidence(
  tool: Pick<ToolSpec, "permission" | "readOnly">,
): ReadOnlyEvidence {
  return tool.readOnly ?? BY_PERMISSION_KEY[tool.permission];
}
