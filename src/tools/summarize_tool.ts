/**
 * The one-line label of a tool in listings (`replio tools`, `/tools`, `/help`).
 * @module
 */
import type { Tool } from "./types.ts";

/** Longest one-line summary before it is cut. */
const SUMMARY_CHARS = 70;

/**
 * A tool's one-line label: its `short`, else the first sentence of its description.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tool = { description: "# grep\nSearch file contents. Returns lines." } as never;
 * assert.equal(summarizeTool(tool), "Search file contents.");
 * ```
 */
export function summarizeTool(tool: Pick<Tool, "short" | "description">): string {
  if (tool.short) return tool.short;
  const line = tool.description.split("\n").find((l) => l.trim() && !l.startsWith("#")) ?? "";
  const sentence = line.split(/(?<=\.)\s/)[0] ?? line;
  return sentence.length > SUMMARY_CHARS ? sentence.slice(0, SUMMARY_CHARS - 1) + "…" : sentence;
}
