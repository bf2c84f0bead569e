/**
 * The REPL's current session: opened at start (or chosen with `--resume`), replaced by
 * `/session new|load` and `/clear`, and closed at exit.
 * @module
 */
import type { Config } from "../config/mod.ts";
import {
  closestSessions,
  listSessions,
  openSession,
  type Session,
  sessionFile,
} from "../session/mod.ts";
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";
import { pickSession } from "./session_picker.ts";

/** What a session is opened with. */
export interface SessionSettings {
  config: Config;
  /** The model it starts with, recorded in the session. */
  model: string | null;
}

/** The session the REPL writes to. */
export class SessionSlot {
  readonly #worktree: string;
  readonly #notify: (message: string) => void;
  #session: Session | null = null;
  #unwritableNoticed = false;

  /** `notify` tells the person once that sessions cannot be saved here. */
  constructor(worktree: string, notify: (message: string) => void) {
    this.#worktree = worktree;
    this.#notify = notify;
  }

  /** The open session; the REPL opens one before anything reads it. */
  get current(): Session {
    return this.#session!;
  }

  /** Opens session `id` (a new one when undefined) in place of the current one. */
  async open(id: string | undefined, settings: SessionSettings): Promise<void> {
    const next = await openSession(this.#worktree, {
      config: settings.config,
      id,
      model: settings.model ?? undefined,
      onUnwritable: (message) => this.#unwritable(message),
    });
    this.close();
    this.#session = next;
  }

  /** Continues session `id`; throws NotFound naming the closest ids when there is none. */
  async load(id: string, settings: SessionSettings): Promise<void> {
    try {
      await Deno.stat(sessionFile(this.#worktree, id));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const near = (await closestSessions(this.#worktree, id)).slice(0, 3).map((s) => `"${s.id}"`);
      throw new Deno.errors.NotFound(
        `Cannot load session "${id}": no such session here: ` +
          (near.length ? `did you mean ${near.join(" or ")}? ` : "") + "(/session list)",
      );
    }
    await this.open(id, settings);
  }

  /** The id to name at exit: the session has turns and its file was written; else null. */
  get keptId(): string | null {
    const session = this.#session;
    return session && session.turns > 0 && session.unwritable === null ? session.id : null;
  }

  /** Closes the current session. */
  close(): void {
    this.#session?.close();
  }

  /** A session that cannot be saved: said once per REPL, not once per /session new. */
  #unwritable(message: string): void {
    if (this.#unwritableNoticed) return;
    this.#unwritableNoticed = true;
    this.#notify(message);
  }
}

/** What `--resume` needs to ask. */
export interface ResumeIo {
  isTerminal: boolean;
  out: TextWriter;
  styles: Styles;
  width: number;
  readKeys(onKeys: (keys: string) => boolean): Promise<void>;
  print(text: string, style?: (line: string) => string): void;
  printError(message: string): void;
}

/** `--resume`: the picker in a terminal; without one, or with nothing to resume, a new session. */
export async function chooseSessionToResume(
  worktree: string,
  io: ResumeIo,
): Promise<string | undefined> {
  const sessions = (await listSessions(worktree)).filter((s) => !s.parent);
  if (sessions.length === 0) {
    io.print("No sessions to resume in this worktree yet: starting a new one", io.styles.dim);
    return undefined;
  }
  if (!io.isTerminal) {
    io.printError("Cannot show the session picker without a terminal: use --session ID");
    return undefined;
  }
  const id = await pickSession(sessions, {
    out: io.out,
    styles: io.styles,
    width: io.width,
    readKeys: io.readKeys,
  });
  return id ?? undefined;
}
