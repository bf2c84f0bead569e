/**
 * Small model calls around tool use: `query_refine` rewrites short queries of tools that
 * declare `refine`, and `tool_analysis` writes a one-line analysis of a result to the session.
 * Both are best effort: a failure keeps the original and the turn goes on.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ChatMessage, Provider, ToolCall } from "../providers/types.ts";
import type { ToolRegistry } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";

/** Characters of a tool result the analysis call sees. */
const ANALYSIS_INPUT_CHARS = 4000;

/** Longest refined query accepted; longer replies are not a query. */
const MAX_REFINED_CHARS = 300;

/**
 * The call's arguments, with the `refine` argument rewritten when `query_refine` is on and the
 * query has at most `query_refine_min_words` words.
 */
export async function refineArguments(options: {
  call: ToolCall;
  registry: ToolRegistry;
  config: Config;
  provider: Provider;
  history: readonly ChatMessage[];
  signal: AbortSignal;
  sink: Sink;
}): Promise<string> {
  const { call, registry, config, provider, history, signal, sink } = options;
  const raw = call.function.arguments;
  const key = registry.lookup(call.function.name)?.tool.refine;
  if (!config.get("query_refine") || !key) return raw;
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(raw || "{}");
  } catch (error) {
    if (error instanceof SyntaxError) return raw; // the registry reports bad JSON to the model
    throw error;
  }
  const query = args[key];
  if (typeof query !== "string") return raw;
  const words = query.trim().split(/\s+/).filter(Boolean).length;
  if (words > config.get("query_refine_min_words")) return raw;
  const recent = history.slice(-config.get("query_refine_context"))
    .map((m) => `${m.role}: ${"content" in m ? m.content ?? "" : ""}`.slice(0, 1000));
  try {
    const refined = (await provider.complete([
      {
        role: "system",
        content: "Rewrite the search query so it is specific and self-contained, using the " +
          "conversation for context. Reply with the query only, on one line.",
      },
      { role: "user", content: `Conversation:\n${recent.join("\n")}\n\nQuery: ${query}` },
    ], signal)).trim().split("\n")[0]!.trim();
    if (!refined || refined.length > MAX_REFINED_CHARS) return raw;
    sink.emit({ type: "note", message: `refined query "${query}" → "${refined}"` });
    return JSON.stringify({ ...args, [key]: refined });
  } catch (error) {
    if (signal.aborted) return raw;
    sink.emit({
      type: "note",
      message: `query refinement failed, kept "${query}": ${String(error)}`,
    });
    return raw;
  }
}

/** A one-line analysis of a tool result, or "" when the call fails. */
export async function analyseResult(options: {
  call: ToolCall;
  output: string;
  provider: Provider;
  signal: AbortSignal;
}): Promise<string> {
  const { call, output, provider, signal } = options;
  try {
    const text = await provider.complete([
      {
        role: "system",
        content: "In one line, say what this tool result tells the agent (facts, not advice).",
      },
      {
        role: "user",
        content: `${call.function.name}(${call.function.arguments})\n${
          output.slice(0, ANALYSIS_INPUT_CHARS)
        }`,
      },
    ], signal);
    return text.trim().split("\n")[0] ?? "";
  } catch (error) {
    if (signal.aborted) return "";
    return `(analysis failed: ${error instanceof Error ? error.message : String(error)})`;
  }
}
