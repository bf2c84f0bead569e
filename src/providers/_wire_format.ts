/**
 * Messages and tools as OpenAI-compatible servers take them: only the fields they accept.
 * @module
 */
import type { ToolSchema } from "../tools/types.ts";
import type { ChatMessage } from "./types.ts";

/**
 * One message as sent: the session's `reasoning` and a tool message's `name` stay out of
 * requests, since strict servers reject unknown fields.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   toWireMessage({ role: "assistant", content: "Hi", reasoning: "greet" }),
 *   { role: "assistant", content: "Hi" },
 * );
 * ```
 */
export function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    default:
      return message;
  }
}

/** One tool as sent: its name, description and parameters, nothing a registry added. */
export function toWireTool(tool: ToolSchema): ToolSchema {
  return {
    type: "function",
    function: {
      name: tool.function.name,
      description: tool.function.description,
      parameters: { ...tool.function.parameters },
    },
  };
}
