/**
 * What the engine needs of a session (DESIGN.md §3 Session store); `src/session`'s Session
 * implements it, and sub-agent sessions are the same kind.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";
import type { NewRecord } from "../session/records.ts";

/** An append-only session as the engine sees it. Appends are synchronous and ordered. */
export interface TurnLog {
  readonly id: string;
  /** How many message records the session holds (compaction's `upto` counts these). */
  readonly messageCount: number;
  /** The model history to resume from (compaction applied, every tool call answered). */
  history(): ChatMessage[];
  append(record: NewRecord): void;
  /** Writes `turn_start` and returns the turn number. */
  beginTurn(prompt: string): number;
  /** Saves a file before the turn's first change to it, for undo; absent where none is kept. */
  checkpoint?(path: string): Promise<void>;
}
