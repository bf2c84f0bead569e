/**
 * The one event vocabulary from the engine to every renderer (stream-json names of DESIGN.md
 * §4), and the Sink the engine reports through. Types only: renderers and the engine share it.
 * @module
 */
import type { Usage } from "../providers/types.ts";
import type { Action, AskRequest } from "../tools/types.ts";

/** How a turn ended. */
export type TurnStatus = "ok" | "error" | "cancelled" | "truncated" | "max_rounds" | "parked";

/**
 * A person's or a flag's decision on an ask-gated call; `parked` means a headless `--park` run
 * stopped to wait for one (`replio approve` / `replio deny`).
 */
export type Decision = "granted" | "declined" | "denied" | "parked";

/** Display data for an activity line (`← Read README.md [offset=2]`); renderers style it. */
export interface Activity {
  /** Null when the category has no glyph: render the `[tool: key]` oneliner. */
  glyph: string | null;
  verb: string;
  /** The key argument's value, or "" when the tool declares none. */
  key: string;
  /** The other arguments the model passed, rendered as `[k=v, …]` by glyph_params. */
  params: Record<string, unknown>;
  /** The tool's `status` block: first line the oneliner, the rest dimmed detail. */
  status?: string;
  /** Print the result dimmed below the line (run_command). */
  echo: boolean;
}

/** Everything the engine reports, one discriminated union on `type`. */
export type TurnEvent =
  | { type: "session"; id: string }
  | { type: "thinking"; delta: string }
  | { type: "text"; delta: string }
  | {
    type: "tool_call";
    id: string;
    name: string;
    arguments: Record<string, unknown>;
    activity: Activity;
    /** How the call is to run: `in-process`, `worker(…)`, `bwrap(…)` or `none`. */
    isolation?: string;
  }
  | { type: "permission"; tool: string; action: Action; decision: Decision; reason: string }
  | {
    type: "tool_result";
    id: string;
    name: string;
    output: string;
    is_error: boolean;
    /** A soft one-line note such as `(empty file)` (the tool's `note` predicate). */
    is_note: boolean;
    /** How the call ran (a sandboxed command rerun without the sandbox says `none`). */
    isolation?: string;
  }
  | {
    /** A running call's latest output lines (run_command), replacing the previous ones. */
    type: "tool_progress";
    id: string;
    name: string;
    lines: readonly string[];
  }
  | { type: "note"; message: string }
  | {
    type: "parked";
    id: string;
    tool: string;
    arguments: Record<string, unknown>;
    /** What the confirm prompt would have shown. */
    activity: Activity;
    reason: string;
  }
  | { type: "error"; code: string; message: string }
  | { type: "turn_end"; status: TurnStatus; usage: Usage };

/** A confirmation request for an ask-gated tool call. */
export interface ConfirmRequest {
  tool: string;
  activity: Activity;
  reason: string;
  /** The resolved (symlink-followed) path the call would touch, when the tool has one. */
  path?: string;
  /** Set when the call writes a protected path (`.git/config`): the prompt warns. */
  protectedPath?: string;
  /** The "always allow" rule offered, as it reads (`run_command commands starting with "ls"`). */
  always?: string;
  /** The key argument's value, offered for editing before it runs (run_command's command). */
  editable?: string;
}

/**
 * The answer to a confirmation: `cancel` cancels the whole turn, `always` also accepts the
 * offered rule for the session, `edited` runs the call with the key argument as the person
 * rewrote it, `declined` refuses it with the person's reason, which the model is told.
 */
export type ConfirmAnswer =
  | "yes"
  | "no"
  | "cancel"
  | "always"
  | { edited: string }
  | { declined: string };

/** Where the engine reports; only `confirm` and `ask` return a value. */
export interface Sink {
  /**
   * `false` when this sink never shows a call's status preview (a diff, a new file's text): the
   * engine then makes one only for a confirm prompt or a parked call. Absent means it does.
   */
  readonly showsPreviews?: boolean;
  emit(event: TurnEvent): void;
  confirm(request: ConfirmRequest): Promise<ConfirmAnswer>;
  /** `null` when no person can answer (headless). */
  ask(request: AskRequest & { from?: string }): Promise<string | null>;
}
