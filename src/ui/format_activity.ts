/**
 * Activity-line text (spec/tools.md §Status and activity lines), shared by every renderer and
 * the confirm prompt so both show the same label.
 * @module
 */
import type { Activity } from "./events.ts";

/** Display switches from config. */
export interface ActivityOptions {
  glyphLines: boolean;
  glyphParams: boolean;
}

/** Longest shown parameter value before it is clipped. */
const PARAM_CHARS = 60;

/**
 * `← Read README.md [offset=2]`, or the `[tool: key]` oneliner when the category has no glyph
 * or glyph_lines is off.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const activity = { glyph: "←", verb: "Read", key: "a.ts", params: { offset: 2 }, echo: false };
 * assert.equal(formatActivity(activity, { glyphLines: true, glyphParams: true }), "← Read a.ts [offset=2]");
 * ```
 */
export function formatActivity(
  activity: Activity,
  options: ActivityOptions,
  tool = activity.verb,
): string {
  const suffix = options.glyphParams ? formatParams(activity.params) : "";
  if (options.glyphLines && activity.glyph) {
    return `${activity.glyph} ${activity.verb}${
      activity.key ? " " + oneLine(activity.key) : ""
    }${suffix}`;
  }
  const head = activity.status?.split("\n")[0] ?? activity.key;
  return `[${tool}${head ? ": " + oneLine(head) : ""}]${suffix}`;
}

/** The status block's detail lines (everything after its first line). */
export function statusDetail(activity: Activity): string[] {
  return activity.status ? activity.status.split("\n").slice(1) : [];
}

function formatParams(params: Record<string, unknown>): string {
  const parts = Object.entries(params).map(([k, v]) =>
    `${k}=${clip(typeof v === "string" ? v : JSON.stringify(v))}`
  );
  return parts.length ? ` [${parts.join(", ")}]` : "";
}

function oneLine(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return clip(first) + (text.includes("\n") ? " …" : "");
}

function clip(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > PARAM_CHARS ? flat.slice(0, PARAM_CHARS - 1) + "…" : flat;
}
