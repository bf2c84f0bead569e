/**
 * The result of one turn, as `replio run --output json` prints it (DESIGN.md §4).
 * @module
 */
import type { Usage } from "../providers/types.ts";
import type { PermissionRecord } from "../tools/audit.ts";
import type { TurnStatus } from "../ui/events.ts";

/** One tool call of the turn with its result. */
export interface TurnToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  is_error: boolean;
}

/** Everything a turn produced. */
export interface TurnResult {
  status: TurnStatus;
  /** The final answer text (all assistant text of the turn). */
  content: string;
  thinking: string;
  tool_calls: TurnToolCall[];
  permissions: PermissionRecord[];
  errors: { code: string; message: string }[];
  usage: Usage;
  model: string;
  session: string;
  rounds: number;
  duration_ms: number;
}

/** Zero usage, to add rounds onto. */
export function emptyUsage(): Usage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
}
