/**
 * What happens to a record on its way to disk (and only there): noisy tool results become a
 * marker, long ones are capped, and API keys are scrubbed from the whole line.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ChatMessage } from "../providers/types.ts";
import type { SessionRecord } from "./records.ts";

/** Secrets shorter than this are not scrubbed: placeholders such as "ollama" are ordinary words. */
const MIN_SECRET_CHARS = 8;

/** A value that must never reach a session file, and the env var it came from. */
export interface Secret {
  value: string;
  source: string;
}

/** The write-time rules of one session. */
export interface WriteRules {
  /** Tools whose results are replaced by a marker (config `noise_tools`). */
  noiseTools: ReadonlySet<string>;
  /** Cap on persisted tool-result content; 0 is unlimited (config `session_tool_max_chars`). */
  toolMaxChars: number;
  secrets: readonly Secret[];
}

/**
 * The rules from config: `noise_tools`, `session_tool_max_chars`, and the values of every env
 * var a `*api_key_env` key names, read only when the process was granted that variable.
 */
export function writeRulesFromConfig(config: Config): WriteRules {
  const secrets: Secret[] = [];
  for (const [key, setting] of config.entries()) {
    if (!key.endsWith("api_key_env") || typeof setting.value !== "string") continue;
    const value = readGrantedEnv(setting.value);
    if (value !== undefined) secrets.push({ value, source: setting.value });
  }
  return {
    noiseTools: new Set(config.get("noise_tools")),
    toolMaxChars: config.get("session_tool_max_chars"),
    secrets: secrets.filter((s) => s.value.length >= MIN_SECRET_CHARS),
  };
}

/**
 * One record as its line on disk, newline included: `type` and `ts` first, tool results shaped,
 * secrets replaced by `[redacted NAME]`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const rules = { noiseTools: new Set(["web_fetch"]), toolMaxChars: 0, secrets: [] };
 * const line = serializeRecord({
 *   type: "message",
 *   ts: "2026-11-30T14:25:01.000Z",
 *   message: { role: "tool", tool_call_id: "c1", name: "web_fetch", content: "x".repeat(500) },
 * }, rules);
 * assert.equal(JSON.parse(line).message.content, "[web_fetch result omitted: 500 chars (noise_tools)]");
 * ```
 */
export function serializeRecord(record: SessionRecord, rules: WriteRules): string {
  const { type, ts, ...rest } = record;
  const shaped = record.type === "message"
    ? { type, ts, message: shapeMessage(record.message, rules) }
    : { type, ts, ...rest };
  let line = JSON.stringify(shaped);
  for (const secret of rules.secrets) {
    const escaped = JSON.stringify(secret.value).slice(1, -1);
    line = line.replaceAll(escaped, `[redacted ${secret.source.replace(/[^A-Za-z0-9_]/g, "_")}]`);
  }
  return line + "\n";
}

function shapeMessage(message: ChatMessage, rules: WriteRules): ChatMessage {
  if (message.role !== "tool") return message;
  const { content, name } = message;
  if (rules.noiseTools.has(name)) {
    return {
      ...message,
      content: `[${name} result omitted: ${content.length} chars (noise_tools)]`,
    };
  }
  if (rules.toolMaxChars > 0 && content.length > rules.toolMaxChars) {
    const kept = cutAt(content, rules.toolMaxChars);
    const omitted = content.length - kept.length;
    return {
      ...message,
      content: `${kept}\n[${omitted} more chars omitted (session_tool_max_chars)]`,
    };
  }
  return message;
}

/** Cuts at `max` chars without splitting a surrogate pair. */
function cutAt(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

function readGrantedEnv(name: string): string | undefined {
  if (name === "") return undefined;
  // querySync never prompts; without the grant Deno.env.get would throw NotCapable.
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}
