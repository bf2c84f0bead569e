/**
 * Compaction: older turns are summarised by the model and replaced in the in-memory history;
 * recent turns are kept whole. The session log itself is never trimmed.
 * @module
 */
import type { ChatMessage, Provider } from "../providers/types.ts";
import { summaryMessage } from "../session/mod.ts";

/** How many of the most recent user turns are kept verbatim. */
const KEPT_TURNS = 2;

/** Characters of each message given to the summariser; the summary need not quote whole files. */
const MESSAGE_CHARS = 2000;

const SUMMARY_PROMPT =
  "Summarise the conversation below for your own later use: the user's goals, decisions made, " +
  "files read or changed (with paths), commands run and their outcomes, and open questions. " +
  "Be concise and factual; use bullet points.";

/** A compacted history: the summary message first, then the kept messages. */
export interface Compacted {
  history: ChatMessage[];
  summary: string;
  /** How many of the newest messages were kept verbatim. */
  kept: number;
}

/** Summarises everything before the last {@link KEPT_TURNS} user turns; null if nothing to fold. */
export async function compactHistory(options: {
  history: readonly ChatMessage[];
  provider: Provider;
  signal: AbortSignal;
}): Promise<Compacted | null> {
  const { history, provider, signal } = options;
  const turnStarts = history.flatMap((m, i) => (m.role === "user" ? [i] : []));
  if (turnStarts.length <= KEPT_TURNS) return null;
  const cut = turnStarts[turnStarts.length - KEPT_TURNS]!;
  const older = history.slice(0, cut);
  const transcript = older.map(renderForSummary).join("\n");
  const summary = (await provider.complete([
    { role: "system", content: SUMMARY_PROMPT },
    { role: "user", content: transcript },
  ], signal)).trim();
  const kept = history.slice(cut);
  return {
    history: [summaryMessage(summary), ...kept],
    summary,
    kept: kept.length,
  };
}

function renderForSummary(message: ChatMessage): string {
  const clip = (text: string) =>
    text.length > MESSAGE_CHARS ? text.slice(0, MESSAGE_CHARS) + " …(clipped)" : text;
  switch (message.role) {
    case "assistant": {
      const calls = (message.tool_calls ?? []).map((c) =>
        `${c.function.name}(${c.function.arguments})`
      );
      return `assistant: ${clip(message.content ?? "")}${
        calls.length ? ` [calls: ${calls.join(", ")}]` : ""
      }`;
    }
    case "tool":
      return `tool ${message.name}: ${clip(message.content)}`;
    default:
      return `${message.role}: ${clip(message.content)}`;
  }
}
