/**
 * Activity-line data from registration metadata (spec/tools.md §Status and activity lines).
 * Renderers style it; this only decides glyph, verb, key and parameters.
 * @module
 */
import type { Activity } from "../ui/events.ts";
import type { Category, Tool, ToolArgs, ToolContext } from "./types.ts";

/** Category defaults; categories not listed fall back to the `[tool: key]` oneliner. */
const CATEGORY_GLYPHS: Partial<Record<Category, { glyph: string; verb: string }>> = {
  read: { glyph: "←", verb: "Read" },
  write: { glyph: "→", verb: "Write" },
  search: { glyph: "%", verb: "Search" },
  exec: { glyph: "$", verb: "Run" },
  ask: { glyph: "~", verb: "Ask" },
  todo: { glyph: "-", verb: "Todo" },
  delegate: { glyph: "↳", verb: "Call" },
};

/**
 * The activity line for a call; `passed` names the arguments the model gave (defaults filled
 * in by validation are not shown). The tool's `status` block is included when it has one, unless
 * `status: false`.
 */
export async function describeActivity(
  tool: Tool,
  args: ToolArgs,
  ctx: ToolContext,
  passed: ReadonlySet<string> = new Set(Object.keys(args)),
  options: { status?: boolean } = {},
): Promise<Activity> {
  const mapped = CATEGORY_GLYPHS[tool.category];
  const keyValue = tool.keyArg === undefined ? undefined : args[tool.keyArg];
  const params = Object.fromEntries(
    Object.entries(args).filter(([k]) => k !== tool.keyArg && passed.has(k)),
  );
  const activity: Activity = {
    glyph: tool.glyph ?? mapped?.glyph ?? null,
    verb: tool.verb ?? mapped?.verb ?? tool.name,
    key: keyValue === undefined
      ? ""
      : typeof keyValue === "string"
      ? keyValue
      : JSON.stringify(keyValue),
    params,
    echo: tool.echo ?? false,
  };
  if (tool.status && (options.status ?? true)) {
    try {
      activity.status = await tool.status(args, ctx);
    } catch (error) {
      // A preview is decoration: its failure is shown, and the call itself goes on.
      activity.status = `(no preview: ${error instanceof Error ? error.message : String(error)})`;
    }
  }
  return activity;
}

/** The activity of a call that never reached a tool (unknown name, bad JSON, skipped on cancel). */
export function plainActivity(name: string, args: Record<string, unknown> = {}): Activity {
  return { glyph: null, verb: name, key: "", params: args, echo: false };
}
