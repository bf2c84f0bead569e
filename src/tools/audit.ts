/**
 * The permission audit record (DESIGN.md §3): one per resolution and its outcome.
 * @module
 */
import type { Decision } from "../ui/events.ts";
import type { Action, PermissionKey } from "./types.ts";

/** One line of a session's permission audit. */
export interface PermissionRecord {
  /** The tool call this decision is about (absent in sessions written before it was kept). */
  call_id?: string;
  tool: string;
  permission: PermissionKey;
  action: Action;
  decision: Decision;
  reason: string;
  path?: string;
  /**
   * How the call runs: `in-process`, `worker(…)`, `bwrap(…)` or `none` (spec `isolation`);
   * absent in sessions written before it was recorded.
   */
  isolation?: string;
  ts: string;
}
