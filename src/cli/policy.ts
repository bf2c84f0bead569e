/**
 * `replio policy test`: re-resolves every tool call recorded in sessions against the current
 * config, mode and flags (or a proposed config file) and prints each call whose action would
 * change. A change that loosens (deny → ask/allow, ask → allow) exits 1, so it guards config
 * changes in CI. `replio policy explain` shows one call's resolution step by step (docs/policy.md).
 * @module
 */
import { AGENT_TYPES_SERVICE } from "../agents/mod.ts";
import { listSessions, readRecordedCalls, type RecordedCall, sessionFile } from "../session/mod.ts";
import type { Config, ConfigKey, Setting } from "../config/mod.ts";
import { settingLine } from "../config/setting_line.ts";
import type { Action, PolicyStep } from "../tools/mod.ts";
import { describeWrongKind, isWrongKind } from "../fs/wrong_kind.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import { resolveSessionFile } from "./session_files.ts";
import { parseToolArguments } from "./tool.ts";
import { openWorkspace, type Workspace } from "./workspace.ts";

/** Options of `replio policy test`. */
export interface PolicyTestOptions {
  all?: boolean;
  config?: string;
  mode?: string;
  json?: boolean;
  path?: string;
}

/** How strict an action is: a higher rank grants more. */
const RANK: Record<Action, number> = { deny: 0, ask: 1, allow: 2 };

/** One re-resolved call whose action differs from the recorded one. */
export interface PolicyChange {
  session: string;
  turn: number;
  call: string;
  tool: string;
  /** The key argument (a command, a path), for people reading the list. */
  subject: string;
  before: { action: Action; reason: string };
  after: { action: Action; reason: string };
  loosened: boolean;
}

/** What `policy test` found over all the calls it read. */
export interface PolicyTestReport {
  sessions: number;
  calls: number;
  unchanged: number;
  /** Calls that never reached the policy when recorded, or whose tool no longer exists. */
  skipped: number;
  changes: PolicyChange[];
}

/** Runs `policy test` over the given sessions (ids or files) and returns the exit code. */
export async function runPolicyTest(
  against: string[],
  options: PolicyTestOptions,
): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  if (options.config !== undefined) await requireConfigFile(options.config);
  const files = await sessionFiles(worktree, against, options.all ?? false);
  const ws = await openWorkspace({
    path: options.path,
    mode: options.mode,
    configFile: options.config,
  });
  const report = await testPolicy(ws, files);
  const out = options.json ? JSON.stringify(report) + "\n" : formatReport(report);
  await Deno.stdout.write(new TextEncoder().encode(out));
  return report.changes.some((c) => c.loosened) ? EXIT.failed : EXIT.ok;
}

/**
 * A proposed config must be a file: read like a project file, a mistyped path would be an empty
 * config, and the test would pass against the defaults ("0 would change").
 */
async function requireConfigFile(path: string): Promise<void> {
  let isFile: boolean;
  try {
    isFile = (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(
        `Cannot test the policy with --config "${path}": no such file: check the path`,
      );
    }
    if (!isWrongKind(error)) throw error;
    isFile = false;
  }
  if (!isFile) {
    throw new UsageError(`Cannot test the policy with --config: ${describeWrongKind(path)}`);
  }
}

/** Re-resolves every recorded call of `files` under the workspace's policy. */
export async function testPolicy(ws: Workspace, files: string[]): Promise<PolicyTestReport> {
  const report: PolicyTestReport = {
    sessions: files.length,
    calls: 0,
    unchanged: 0,
    skipped: 0,
    changes: [],
  };
  const services = { [AGENT_TYPES_SERVICE]: ws.agentTypes };
  for (const file of files) {
    for await (const call of readRecordedCalls(file)) {
      report.calls++;
      const change = await reResolve(ws, call, services);
      if (change === "skipped") report.skipped++;
      else if (change === null) report.unchanged++;
      else report.changes.push(change);
    }
  }
  return report;
}

async function reResolve(
  ws: Workspace,
  call: RecordedCall,
  services: Record<string, unknown>,
): Promise<PolicyChange | null | "skipped"> {
  if (!call.permission) return "skipped";
  let prepared;
  try {
    prepared = ws.registry.prepare(call.name, call.arguments);
  } catch {
    return "skipped";
  }
  const now = await ws.policy.resolve(prepared.tool, prepared.args, services);
  const before = { action: call.permission.action, reason: call.permission.reason };
  if (now.action === before.action) return null;
  const subject = prepared.tool.keyArg ? prepared.args[prepared.tool.keyArg] : undefined;
  return {
    session: call.session,
    turn: call.turn,
    call: call.id,
    tool: prepared.tool.name,
    subject: typeof subject === "string" ? subject : "",
    before,
    after: { action: now.action, reason: now.reason },
    loosened: RANK[now.action] > RANK[before.action],
  };
}

/** Session ids, file paths, or every session of the worktree with `--all`. */
async function sessionFiles(worktree: string, against: string[], all: boolean): Promise<string[]> {
  if (all) {
    if (against.length) {
      throw new UsageError("Cannot test the policy: give sessions or --all, not both");
    }
    const sessions = await listSessions(worktree);
    return sessions.map((s) => sessionFile(worktree, s.id));
  }
  if (against.length === 0) {
    throw new UsageError(
      "Cannot test the policy: no sessions given: pass --against ID|FILE… or --all " +
        "(replio sessions list shows the ids)",
    );
  }
  return await Promise.all(against.map((given) => resolveSessionFile(worktree, given)));
}

/** The changes, one line each, then counts per tool and per reason. */
export function formatReport(report: PolicyTestReport): string {
  const lines: string[] = [];
  for (const c of report.changes) {
    const subject = c.subject ? ` ${JSON.stringify(cut(c.subject))}` : "";
    lines.push(
      `${c.loosened ? "LOOSER" : "stricter"}  ${c.tool}${subject}: ${c.before.action} → ` +
        `${c.after.action} (${c.after.reason})  [${c.session} turn ${c.turn}]`,
    );
  }
  const loosened = report.changes.filter((c) => c.loosened).length;
  if (lines.length) lines.push("");
  lines.push(
    `${report.calls} calls in ${report.sessions} sessions: ${report.changes.length} would change ` +
      `(${loosened} looser, ${report.changes.length - loosened} stricter), ` +
      `${report.unchanged} unchanged, ${report.skipped} not re-resolved (no decision recorded ` +
      `or the tool is gone)`,
  );
  for (const [label, key] of [["tool", "tool"], ["reason", "reason"]] as const) {
    const counts = new Map<string, number>();
    for (const c of report.changes) {
      const name = key === "tool" ? c.tool : c.after.reason;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    if (counts.size) {
      lines.push(
        `by ${label}: ${[...counts].map(([name, n]) => `${name} ${n}`).join(", ")}`,
      );
    }
  }
  if (loosened) lines.push("exit 1: the new policy allows what the recorded one did not");
  return lines.join("\n") + "\n";
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ");
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** Options of `replio policy explain`. */
export interface PolicyExplainOptions {
  mode?: string;
  json?: boolean;
  path?: string;
  trust?: boolean;
}

/** A step as explained: where the setting it read came from (`file:line`, `default`, `flag`). */
export interface ExplainedStep extends PolicyStep {
  from?: string;
}

/**
 * `replio policy explain TOOL JSON`: the resolution of one call step by step, with the config
 * file and line of each setting a step read, and the folder's trust.
 */
export async function runPolicyExplain(
  name: string,
  json: string,
  options: PolicyExplainOptions,
): Promise<number> {
  const args = parseToolArguments(name, json);
  const ws = await openWorkspace({ path: options.path, mode: options.mode, trust: options.trust });
  let call;
  try {
    call = ws.registry.prepare(name, args);
  } catch (error) {
    throw new UsageError(`Cannot explain ${name}: ${(error as Error).message}`);
  }
  const trace: PolicyStep[] = [];
  const result = await ws.policy.resolve(
    call.tool,
    call.args,
    { [AGENT_TYPES_SERVICE]: ws.agentTypes },
    trace,
  );
  const steps: ExplainedStep[] = [];
  for (const step of trace) {
    steps.push(step.key ? { ...step, from: await whereSet(ws.config, step.key) } : step);
  }
  const trust = ws.config.trust;
  const folder = trust.trusted
    ? `trusted (${trust.by ?? "no project settings"})`
    : trust.ignored
    ? "untrusted: the project's .replio/ settings were not loaded (replio trust)"
    : "untrusted (it has no project settings)";
  const report = {
    tool: call.tool.name,
    permission: call.tool.permission,
    mode: ws.policy.mode,
    folder,
    steps,
    action: result.action,
    reason: result.reason,
    protected: result.protectedPath !== undefined,
    ...(result.path === undefined ? {} : { path: result.path }),
  };
  const out = options.json ? JSON.stringify(report) + "\n" : formatExplanation(report);
  await Deno.stdout.write(new TextEncoder().encode(out));
  return EXIT.ok;
}

/** Where `key`'s effective value was set: `file:line`, `default`, `flag` or the file alone. */
async function whereSet(config: Config, key: string): Promise<string> {
  // A mode's entry (`modes.plan`) is set under the `modes` key, or is one of the built-in ones.
  const mode = key.startsWith("modes.") ? key.slice("modes.".length) : null;
  if (mode !== null && !(mode in (config.get("modes") as Record<string, unknown>))) {
    return `built-in mode ${mode}`;
  }
  const found: Setting = config.setting((mode === null ? key : "modes") as ConfigKey);
  if (!found.file) return found.origin;
  const line = await settingLine(found.file, key);
  return line === null ? found.file : `${found.file}:${line}`;
}

function formatExplanation(report: {
  tool: string;
  permission: string;
  mode: string;
  folder: string;
  steps: ExplainedStep[];
  action: string;
  reason: string;
  protected: boolean;
}): string {
  const width = Math.max(...report.steps.map((s) => s.step.length));
  const lines = [
    `${report.tool} (permission ${report.permission}) in mode ${report.mode}; folder ${report.folder}`,
    ...report.steps.map((s, i) =>
      `${i + 1}. ${s.step.padEnd(width)}  ${s.result.padEnd(5)}  ${s.reason}` +
      (s.from ? `  [${s.from}]` : "")
    ),
    `result: ${report.action} (${report.reason})`,
    report.action === "ask" && report.protected
      ? "then: the REPL asks, with a warning; headless runs refuse it even with --yes; " +
        "--park waits for replio approve"
      : report.action === "ask"
      ? "then: the REPL asks; headless runs deny it unless --yes; --park waits for replio approve"
      : report.action === "allow"
      ? "then: it runs without asking"
      : "then: it is refused",
  ];
  return lines.join("\n") + "\n";
}
