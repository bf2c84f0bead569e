/**
 * `replio sessions list | show ID [--json]`: the saved sessions of a worktree.
 * @module
 */
import {
  collectOutputs,
  isSessionId,
  listSessions as listWorktreeSessions,
  type LoadedSession,
  loadSession,
  renderTranscript,
  sessionsDir,
  type SessionSummary,
} from "../session/mod.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import { EXIT, UsageError } from "./errors.ts";

/** Options of `replio sessions list`. */
export interface ListSessionsOptions {
  json?: boolean;
  path?: string;
}

/** Options of `replio sessions show`. */
export interface ShowSessionOptions {
  json?: boolean;
  path?: string;
}

/** Prints the sessions, newest first, or a line saying there are none; exit 0. */
export async function listSessions(options: ListSessionsOptions): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const sessions = await listWorktreeSessions(worktree);
  if (options.json) {
    await write(Deno.stdout, JSON.stringify(sessions, null, 2) + "\n");
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    await write(
      Deno.stdout,
      `No sessions yet in ${
        sessionsDir(worktree)
      }: run \`replio\` or \`replio run PROMPT\` to start one\n`,
    );
    return EXIT.ok;
  }
  await write(Deno.stdout, formatList(sessions));
  return EXIT.ok;
}

/** Options of `replio sessions gc`. */
export interface GcSessionsOptions {
  days?: string;
  path?: string;
}

/**
 * Removes the kept tool outputs (`tool_output`) of sessions last written more than `--days`
 * ago, and of deleted sessions; the session files stay. Exit 0; a bad `--days` is exit 2.
 */
export async function gcSessions(options: GcSessionsOptions): Promise<number> {
  const days = Number(options.days ?? "14");
  if (!Number.isFinite(days) || days < 0) {
    throw new UsageError(
      `Cannot collect outputs: --days "${options.days}" is not a number of days >= 0: ` +
        "pass e.g. --days 7",
    );
  }
  const worktree = await resolveWorktree(options.path);
  const report = await collectOutputs(worktree, days);
  await write(
    Deno.stdout,
    report.removed.length === 0
      ? `No kept outputs older than ${days} days in ${sessionsDir(worktree)}\n`
      : `Removed the kept outputs of ${report.removed.length} ` +
        `${report.removed.length === 1 ? "session" : "sessions"} ` +
        `(${formatSize(report.bytes)}): ${report.removed.join(", ")}\n`,
  );
  return EXIT.ok;
}

/** Prints one session as a transcript or JSON; an unknown or invalid id is a usage error (exit 2). */
export async function showSession(id: string, options: ShowSessionOptions): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const hint = "run `replio sessions list` to see the ids";
  if (!isSessionId(id)) {
    throw new UsageError(`Cannot show session "${id}": not a session id: ${hint}`);
  }
  let session: LoadedSession;
  try {
    session = await loadSession(worktree, id);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(
      `Cannot show session "${id}": no such session in ${sessionsDir(worktree)}: ${hint}`,
    );
  }
  if (options.json) {
    const { header, messages, permissions, errors, warnings } = session;
    const text = JSON.stringify({ id, header, messages, permissions, errors, warnings }, null, 2);
    await write(Deno.stdout, text + "\n");
  } else {
    await write(Deno.stdout, renderTranscript(session));
  }
  return EXIT.ok;
}

function formatList(sessions: SessionSummary[]): string {
  const idWidth = Math.max(2, ...sessions.map((s) => s.id.length));
  const rows = sessions.map((s) => {
    const prompt = s.parent ? `↳ ${s.parent}: ${s.lastPrompt}` : s.lastPrompt;
    return [
      s.id.padEnd(idWidth),
      formatTime(s.updated).padEnd(16),
      String(s.turns).padStart(5),
      formatSize(s.size).padStart(8),
      prompt,
    ].join("  ").trimEnd();
  });
  const head = [
    "ID".padEnd(idWidth),
    "UPDATED (UTC)".padEnd(16),
    "TURNS",
    "    SIZE",
    "LAST PROMPT",
  ]
    .join("  ");
  return [head, ...rows].join("\n") + "\n";
}

function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function write(stream: { write(p: Uint8Array): Promise<number> }, text: string) {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await stream.write(bytes.subarray(written));
}
