/**
 * Activity-line text (spec/tools.md §Status and activity lines), shared by every renderer and
 * the confirm prompt so both show the same label.
 * @module
 */
import type { Activity, ConfirmRequest } from "./events.ts";

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

/** The status block's detail lines (everything after its first line), controls made visible. */
export function statusDetail(activity: Activity): string[] {
  return activity.status ? showControls(activity.status).split("\n").slice(1) : [];
}

/** What a confirm prompt shows, unstyled: nothing in it is clipped. */
export interface ConfirmText {
  /** The activity label with the key argument and every parameter in full, one entry a line. */
  label: string[];
  /** The resolved path and why it asks (`outside worktree`, `protected`), when there is one. */
  path?: string;
  /** Set for a protected path: what writing it could do. */
  warning?: string;
}

/**
 * The confirm prompt's text: everything the person approves, never clipped, parameters included
 * even when glyph_params is off. Control characters
 * are made visible and each line break is shown as `⏎` ending a line the next one continues, so
 * `npm test<spaces>; curl …|sh` or an escape sequence cannot hide part of a command.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const activity = { glyph: "$", verb: "Run", key: "make\necho \x1b[2Jhi", params: {}, echo: true };
 * const text = formatConfirm(
 *   { tool: "run_command", activity, reason: "tool_permission.bash" },
 *   { glyphLines: true, glyphParams: true },
 * );
 * assert.deepEqual(text, { label: ["$ Run make ⏎", "echo ␛[2Jhi"] });
 * ```
 */
export function formatConfirm(request: ConfirmRequest, options: ActivityOptions): ConfirmText {
  const { activity } = request;
  const shown = (text: string) => showControls(text).replaceAll("\n", " ⏎\n");
  // glyph_params shortens activity lines; a confirm shows what it approves whatever it says.
  const suffix = formatParams(activity.params, shown);
  const head = options.glyphLines && activity.glyph
    ? `${activity.glyph} ${activity.verb}${activity.key ? " " + shown(activity.key) : ""}`
    : `[${request.tool}${
      activity.key || activity.status
        ? ": " + shown(activity.key || activity.status!.split("\n")[0]!)
        : ""
    }]`;
  const text: ConfirmText = { label: (head + suffix).split("\n") };
  if (request.path !== undefined) {
    const why = request.protectedPath !== undefined
      ? " (protected)"
      : request.reason.startsWith("outside worktree")
      ? " (outside worktree)"
      : "";
    text.path = `→ ${showControls(request.path)}${why}`;
  }
  if (request.protectedPath !== undefined) {
    text.warning =
      `${showControls(request.protectedPath)} is protected: it steers git or replio, ` +
      `so writing it can run commands or lift replio's limits: allow only if you asked for it`;
  }
  return text;
}

/** Control characters outside `\n` and `\t`, C1 controls, bidi overrides and zero-widths. */
// deno-lint-ignore no-control-regex -- finding control characters is this pattern's job
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Makes characters that could rewrite or hide terminal text visible: ESC as `␛`, other C0
 * controls as their control pictures (`\r` → `␍`), DEL as `␡`, and C1 controls, bidi
 * overrides and zero-width characters as `<U+XXXX>`. Line breaks and tabs are kept.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(showControls("a\x1b[31mb\rc\u202e"), "a␛[31mb␍c<U+202E>");
 * ```
 */
export function showControls(text: string): string {
  return text.replace(CONTROLS, (char) => {
    const code = char.codePointAt(0)!;
    if (code < 0x20) return String.fromCodePoint(0x2400 + code);
    if (code === 0x7f) return "␡";
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

function formatParams(
  params: Record<string, unknown>,
  show: (text: string) => string = clip,
): string {
  const parts = Object.entries(params).map(([k, v]) =>
    `${k}=${show(typeof v === "string" ? v : JSON.stringify(v))}`
  );
  return parts.length ? ` [${parts.join(", ")}]` : "";
}

function oneLine(text: string): string {
  const first = text.split("\n")[0] ?? "";
  return clip(first) + (text.includes("\n") ? " …" : "");
}

function clip(text: string): string {
  const flat = showControls(text).replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > PARAM_CHARS ? flat.slice(0, PARAM_CHARS - 1) + "…" : flat;
}
