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

/**
 * The messages as sent: each by {@link toWireMessage}, and the images of a run of tool results
 * after it as one user message of image parts, since a tool message carries text only and
 * nothing may come between an assistant's tool calls and their results.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const image = { mimeType: "image/png", data: "iVBO" };
 * assert.deepEqual(
 *   toWireMessages([{ role: "tool", tool_call_id: "c1", name: "shot", content: "[image]", images: [image] }]),
 *   [
 *     { role: "tool", tool_call_id: "c1", content: "[image]" },
 *     {
 *       role: "user",
 *       content: [
 *         { type: "text", text: "Images from the result of shot (call c1), in order:" },
 *         { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } },
 *       ],
 *     },
 *   ],
 * );
 * ```
 */
export function toWireMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return wireEntries(messages).map((entry) =>
    "message" in entry ? toWireMessage(entry.message) : entry.wire
  );
}

/** One message of a request: a history message (sent by {@link toWireMessage}) or one made for it. */
export type WireEntry = { message: ChatMessage } | { wire: Record<string, unknown> };

/**
 * The request's messages in order, as {@link toWireMessages} sends them, without converting the
 * history's own: a caller may keep each one's wire form (the request body does).
 */
export function wireEntries(messages: readonly ChatMessage[]): WireEntry[] {
  const entries: WireEntry[] = [];
  let parts: Record<string, unknown>[] = [];
  const flush = () => {
    if (parts.length) entries.push({ wire: { role: "user", content: parts } });
    parts = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flush();
    entries.push({ message });
    if (message.role === "tool" && message.images?.length) {
      parts.push(
        {
          type: "text",
          text:
            `Images from the result of ${message.name} (call ${message.tool_call_id}), in order:`,
        },
        ...message.images.map((image) => ({
          type: "image_url",
          image_url: { url: `data:${image.mimeType};base64,${image.data}` },
        })),
      );
    }
  }
  flush();
  return entries;
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
