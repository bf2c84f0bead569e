/**
 * A loaded session as a plain-text transcript for people (`replio sessions show`): who said
 * what, which tools ran with which arguments, what the policy decided, results shortened.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";
import type { LoadedSession } from "./load_session.ts";
import type { SessionRecord } from "./records.ts";

/** Tool results and long texts show this many lines; the rest is counted. */
const RESULT_LINES = 8;
/** Thinking is context, not the answer: fewer lines. */
const THINKING_LINES = 3;
/** Lines and tool arguments are cut here so one huge line cannot flood the terminal. */
const LINE_MAX_CHARS = 200;
const ARGUMENTS_MAX_CHARS = 300;

/** Renders the whole session, header and warnings first, one block per turn. */
export function renderTranscript(session: LoadedSession): string {
  const lines: string[] = [`Session ${session.id}`];
  const header = session.header;
  const turns = session.records.filter((r) => r.type === "turn_start").length;
  const facts = [
    header ? `created ${formatTime(header.created)}` : "no header",
    ...(header?.model ? [`model ${header.model}`] : []),
    `${turns} ${turns === 1 ? "turn" : "turns"}`,
    ...(header ? [`worktree ${header.worktree}`] : []),
  ];
  lines.push(`  ${facts.join(" · ")}`);
  if (header?.parent) {
    lines.push(
      `  sub-agent of ${header.parent}${header.agent_type ? ` (${header.agent_type})` : ""}`,
    );
  }
  for (const warning of session.warnings) lines.push(`  warning: ${warning}`);
  for (const record of session.records) lines.push(...renderRecord(record));
  return lines.join("\n") + "\n";
}

function renderRecord(record: SessionRecord): string[] {
  switch (record.type) {
    case "session":
      return [];
    case "turn_start":
      return ["", `── Turn ${record.turn} · ${formatTime(record.ts)} ──`];
    case "message":
      return renderMessage(record.message);
    case "permission":
      return [
        `Permission ${record.tool}: ${record.action}, ${record.decision} (${record.reason})` +
        (record.path ? ` ${record.path}` : ""),
      ];
    case "error":
      return labelled(`Error ${record.code}`, record.message, RESULT_LINES);
    case "analysis":
      return labelled(`Analysis [${record.tool_call_id}]`, record.text, RESULT_LINES);
    case "compaction":
      return labelled(
        `Compaction: messages up to #${record.upto + 1} replaced by a summary` +
          (record.keeps_prompt ? " (the turn's prompt kept)" : ""),
        record.summary,
        RESULT_LINES,
      );
    case "subagent":
      return labelled(`Sub-agent ${record.session} (${record.agent_type})`, record.task, 3);
    case "model":
      return [`Model ${record.model} from here on`];
    case "turn_end": {
      const tokens = record.usage.total_tokens.toLocaleString("en-US");
      return [`── Turn ended: ${record.status} · ${tokens} tokens ──`];
    }
    case "pending":
      return [
        `Parked ${record.tool} [${record.call_id}]: waits for replio approve or deny (${record.reason})`,
      ];
    case "approval":
      return [
        `Approval [${record.call_id}]: ${record.decision}` +
        (record.reason ? ` (${record.reason})` : "") +
        (record.always_prefix ? `, always "${record.always_prefix}"` : ""),
      ];
  }
}

function renderMessage(message: ChatMessage): string[] {
  switch (message.role) {
    case "system":
      return labelled("System", message.content, THINKING_LINES);
    case "user":
      return labelled("User", message.content, Infinity);
    case "tool":
      return labelled(
        `Result ${message.name} [${message.tool_call_id}]`,
        message.content,
        RESULT_LINES,
      );
    case "assistant": {
      const lines: string[] = [];
      if (message.reasoning) lines.push(...labelled("Thinking", message.reasoning, THINKING_LINES));
      if (message.content) lines.push(...labelled("Assistant", message.content, Infinity));
      for (const call of message.tool_calls ?? []) {
        const args = cut(call.function.arguments.replace(/\s*\n\s*/g, " "), ARGUMENTS_MAX_CHARS);
        lines.push(`Call ${call.function.name} ${args} [${call.id}]`);
      }
      return lines;
    }
  }
}

/** `Label: first line`, later lines indented, at most `maxLines` then a count of the rest. */
function labelled(label: string, text: string, maxLines: number): string[] {
  const all = text.replace(/\n+$/, "").split("\n");
  const shown = all.slice(0, maxLines).map((line) => cut(line, LINE_MAX_CHARS));
  const hidden = all.length - shown.length;
  if (hidden > 0) shown.push(`… ${hidden} more ${hidden === 1 ? "line" : "lines"}`);
  if (shown.length <= 1) return [`${label}: ${shown[0] ?? ""}`.trimEnd()];
  return [`${label}:`, ...shown.map((line) => `  ${line}`)];
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(iso)
    ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`
    : iso;
}
