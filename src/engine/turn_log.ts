/**
 * What the engine needs of a session: its id, the history to resume from, and an ordered
 * append of records (DESIGN.md §3 Session store). `src/session` implements it.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";

/** A record without its timestamp; the session adds `ts`. */
export type LogRecord = { type: string } & Record<string, unknown>;

/** An append-only session as the engine sees it. Appends land in call order. */
export interface TurnLog {
  readonly id: string;
  /** The model history to resume from (compaction applied, every tool call answered). */
  history(): ChatMessage[];
  append(record: LogRecord): void | Promise<void>;
}
