/**
 * An MCP tool's result as the model reads it: the text blocks joined; images handed to the
 * model as image parts when `mcp_images` is on and the caller has a model that gets them, else
 * described in one line with the reason, like audio and binary resources; and the result's
 * `structuredContent` as JSON after the content. The registry caps the whole like any result.
 * @module
 */
import type { ToolContext, ToolImage } from "../tools/types.ts";
import type { CallToolResult } from "./_sdk.ts";

/**
 * Larger images are described instead: providers refuse big ones (OpenAI's limit is 20 MB) and
 * each is sent again with every later request of the session.
 */
const MAX_IMAGE_BYTES = 5_000_000;

/** The image formats chat models take as image parts. */
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Where a result's images go: handed to the model, or described with the reason they are not. */
export type ImageRoute =
  | { attach: (image: ToolImage) => void }
  | { reason: string };

/** Content blocks other than text, as MCP results carry them. */
type Block = CallToolResult["content"][number];

/**
 * How a call's images reach the model: attached when `mcp_images` is on and the call's context
 * takes them, else described with the reason.
 */
export function imageRoute(ctx: ToolContext): ImageRoute {
  if (!ctx.config.get("mcp_images")) return { reason: "mcp_images is off" };
  if (!ctx.attachImage) return { reason: "this command passes results on as text" };
  return { attach: ctx.attachImage };
}

/**
 * The result as text for the model: text blocks joined with newlines, other blocks one line
 * each, then `structuredContent` unless a text block already holds the same JSON.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeResult(
 *     { content: [{ type: "text", text: "22 °C" }], structuredContent: { celsius: 22 } },
 *     { reason: "mcp_images is off" },
 *   ),
 *   '22 °C\nstructuredContent: {"celsius":22}',
 * );
 * ```
 */
export function describeResult(result: CallToolResult, images: ImageRoute): string {
  const parts = (result.content ?? []).map((block) => {
    if (block.type === "text") return block.text;
    if (block.type === "image" && "attach" in images) {
      const refusal = imageRefusal(block);
      if (refusal === null) {
        images.attach({ mimeType: block.mimeType, data: block.data });
        return `[image: ${block.mimeType}, ${formatBytes(decodedBytes(block.data))}, ` +
          `attached after the tool results]`;
      }
      return describeBlock(block, refusal);
    }
    return describeBlock(block, "reason" in images ? images.reason : "the model reads text only");
  });
  const structured = result.structuredContent;
  if (structured !== undefined && !parts.some((part) => sameJson(part, structured))) {
    parts.push(`structuredContent: ${JSON.stringify(structured)}`);
  }
  return parts.length ? parts.join("\n") : "(no output)";
}

/**
 * A block other than text in one line, with why it is not shown (images and audio), or its
 * text (a text resource).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeBlock({ type: "image", mimeType: "image/png", data: "AAAA" }, "mcp_images is off"),
 *   "[image: image/png, 3 bytes, not shown: mcp_images is off]",
 * );
 * ```
 */
export function describeBlock(
  block: Block | { type: "image" | "audio"; mimeType: string; data: string },
  why: string,
): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${
        formatBytes(decodedBytes(block.data))
      }, not shown: ${why}]`;
    case "resource_link":
      return `[resource link: ${block.uri}]`;
    case "resource":
      return "text" in block.resource
        ? String(block.resource.text)
        : `[resource: ${block.resource.uri}, ${block.resource.mimeType ?? "binary"}, not shown]`;
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** Why an image cannot go to the model as it is, or null when it can. */
function imageRefusal(block: { mimeType: string; data: string }): string | null {
  if (!IMAGE_TYPES.includes(block.mimeType)) {
    return `models take ${IMAGE_TYPES.map((t) => t.slice(6)).join(", ")} images only`;
  }
  const bytes = decodedBytes(block.data);
  if (bytes > MAX_IMAGE_BYTES) {
    return `larger than the ${formatBytes(MAX_IMAGE_BYTES)} replio sends`;
  }
  return null;
}

/** The size of base64 data once decoded. */
function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor(base64.length * 3 / 4) - padding;
}

function formatBytes(bytes: number): string {
  return bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${bytes} bytes`;
}

/** Whether a text block is the structured content itself (MCP asks servers to send both). */
function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch (error) {
    if (error instanceof SyntaxError) return false;
    throw error;
  }
}
