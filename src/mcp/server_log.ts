/**
 * MCP logging for `replio mcp`: the level a client sets with `logging/setLevel`, and a running
 * tool's live lines (run_command's output, an MCP server's progress message) sent as
 * `notifications/message` at or above it.
 * @module
 */
import { ErrorCode } from "./_sdk.ts";
import { ProtocolError } from "./read_call_params.ts";

/** MCP's log levels (RFC 5424's), least severe first. */
export const LOG_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;

/** One of {@link LOG_LEVELS}. */
export type LogLevel = typeof LOG_LEVELS[number];

/** The level of a tool's live lines: what the tool prints is information, not a warning. */
export const TOOL_LINE_LEVEL: LogLevel = "info";

/** The level `logging/setLevel` asks for; throws a -32602 {@link ProtocolError} naming the fix. */
export function readLevelParams(raw: unknown): LogLevel {
  const level = (raw as { level?: unknown } | null | undefined)?.level;
  const found = LOG_LEVELS.find((known) => known === level);
  if (found === undefined) {
    throw new ProtocolError(
      ErrorCode.InvalidParams,
      `Invalid logging/setLevel params: "level" must be one of ${LOG_LEVELS.join(", ")}, got ${
        JSON.stringify(level ?? null)
      }: send {"level": "info"} or another of them`,
    );
  }
  return found;
}

/**
 * Whether a message at `level` passes the threshold `minimum`; with none set every message
 * passes, as MCP leaves the default to the server and the SDK's servers send everything.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isLogged("info", "warning"), false);
 * assert.equal(isLogged("error", "warning"), true);
 * assert.equal(isLogged("debug", null), true);
 * ```
 */
export function isLogged(level: LogLevel, minimum: LogLevel | null): boolean {
  return minimum === null || LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}

/**
 * The lines of a live view (`current`, a tool's latest lines) that the view before it
 * (`previous`) did not show: each report repeats the tail of the last, so only what follows the
 * overlap is new. A last line that grew (a line still being written) counts as new again.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(freshLines(["a", "b"], ["b", "c", "d"]), ["c", "d"]);
 * assert.deepEqual(freshLines(["a", "bu"], ["a", "build ok", "c"]), ["build ok", "c"]);
 * assert.deepEqual(freshLines([], ["x"]), ["x"]);
 * assert.deepEqual(freshLines(["x"], ["x"]), []);
 * ```
 */
export function freshLines(previous: readonly string[], current: readonly string[]): string[] {
  const longest = Math.min(previous.length, current.length);
  for (let k = longest; k > 0; k--) {
    if (isSame(previous.slice(previous.length - k), current.slice(0, k))) {
      return current.slice(k);
    }
  }
  // No exact overlap: the view's last line may have grown since (more of it was written).
  const last = previous.at(-1);
  for (let k = longest; k > 0 && last !== undefined; k--) {
    const grown = current[k - 1]!;
    const before = previous.slice(previous.length - k, -1);
    if (grown.startsWith(last) && isSame(before, current.slice(0, k - 1))) {
      return current.slice(k - 1);
    }
  }
  return [...current];
}

function isSame(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/** A logging notification as the SDK's `sendNotification` takes it. */
export interface LogNotification {
  method: "notifications/message";
  params: { level: LogLevel; logger: string; data: string };
}

/**
 * A tool's progress reporter that sends each new line of its live view as a
 * `notifications/message` from logger `tool`, while the level set by the client lets it through.
 */
export function forwardToolLines(options: {
  tool: string;
  minimum: () => LogLevel | null;
  send(notification: LogNotification): Promise<void>;
}): (lines: readonly string[]) => void {
  let shown: readonly string[] = [];
  let isGone = false;
  return (lines) => {
    const fresh = freshLines(shown, lines);
    shown = lines;
    if (isGone || !isLogged(TOOL_LINE_LEVEL, options.minimum())) return;
    for (const line of fresh) {
      options.send({
        method: "notifications/message",
        params: { level: TOOL_LINE_LEVEL, logger: options.tool, data: line },
        // The client is gone: its calls are being cancelled, so stop logging to it.
      }).catch(() => isGone = true);
    }
  };
}
