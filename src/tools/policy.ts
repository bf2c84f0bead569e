/**
 * ToolPolicy: the single permission resolution point (spec/tools.md §Tool policy). Precedence:
 * name level → category action (mode merged over the base) → read-only mode (denies every tool
 * not proven read-only) → Deno permission layer (can only lower) → the tool's `alwaysAsk` (allow
 * becomes ask) → the tool's permissionFn (refines a non-deny action) → worktree escalation → the
 * session's "always allow" rules (ask → allow) → protected paths (a write to `.git`, `.replio`
 * or the global config always asks).
 * @module
 */
import { type Config, ConfigError } from "../config/mod.ts";
import { describeRule, type SessionApprovals } from "./approvals.ts";
import { denoDenial, modelHostOf } from "./deno_permissions.ts";
import { globalConfigDirs, protectedPath } from "./protected_path.ts";
import { absoluteToolPath, isInside, resolveToolPath } from "./resolve_path.ts";
import { toolIsolation } from "./isolation.ts";
import { readOnlyEvidence } from "./read_only.ts";
import type { Action, PermissionKey, Resolution, Tool, ToolArgs } from "./types.ts";
import type { ToolNameList } from "./unknown_tool_names.ts";

/** The built-in modes; config `modes` may add more or override these. */
export const BUILTIN_MODES: Readonly<Record<string, ModeSpec>> = {
  plan: {
    description: "Read and plan only: no file edits, no commands",
    instructions:
      "You are in plan mode: investigate with read, list and search tools and propose a plan. " +
      "Do not try to edit files or run commands; those tools are disabled.",
    read_only: true,
    tool_permission: { edit: "deny", bash: "deny" },
  },
  sandboxed: {
    description: "Commands run without asking while the OS sandbox is active; otherwise they ask",
    tool_permission: { bash_sandboxed: "allow" },
  },
  "accept-edits": {
    description: "Edits inside the worktree run without asking; commands still ask",
    tool_permission: { edit: "allow", bash: "ask" },
  },
};

/** A mode as config declares it. */
export interface ModeSpec {
  description?: string;
  instructions?: string;
  /** Only tools proven read-only run (src/tools/read_only.ts), whatever else the mode allows. */
  read_only?: boolean;
  tool_permission?: Record<string, Action | string[]>;
  tools?: { allow?: string[]; deny?: string[] };
}

/**
 * One step of a resolution as `replio policy explain` shows it: what the step decided (`pass`
 * when it left the action as it was) and why. `key` is the config key it read, if any.
 */
export interface PolicyStep {
  step: string;
  result: Action | "pass";
  reason: string;
  key?: string;
}

/** A resolution with the resolved path that decided worktree scope, if any. */
export interface PolicyResolution extends Resolution {
  path?: string;
  /**
   * Set when the call writes a protected path (shown relative to the worktree): it asks a
   * person whatever allowed it, and a headless run refuses it even with `--yes`.
   */
  protectedPath?: string;
  /**
   * An ask that a person's "always" may answer for later calls: it came from the category or
   * the tool's own rule, not from an escalation (outside the worktree, and any later guard).
   */
  rememberable?: boolean;
}

/**
 * What headless runs answer for ask-gated calls: `--yes` grants, `--park` stops the turn to wait
 * for `replio approve` / `replio deny`, otherwise denied.
 */
export type HeadlessAnswer = "yes" | "no" | "park";

/** Options for {@link ToolPolicy}. */
export interface PolicyOptions {
  config: Config;
  worktree: string;
  /** `default` (or undefined) means no mode. */
  mode?: string | undefined;
  /** Set for `tool`, `run` and `serve`: ask-gated calls are decided without a person. */
  headless?: HeadlessAnswer | undefined;
  /** The REPL's "always allow" rules: a call they cover is allowed instead of asked. */
  approvals?: SessionApprovals | undefined;
}

/** What the loop and the invoke pipeline need of a policy (sub-agents intersect two). */
export interface Policy {
  readonly worktree: string;
  readonly mode: string;
  readonly headless: HeadlessAnswer | undefined;
  /** "Always allow" rules a person can add at a confirm prompt; absent where no one is asked. */
  readonly approvals?: SessionApprovals | undefined;
  /** The mode's instructions for the system prompt, if any. */
  readonly modeInstructions: string;
  /** The action without arguments (listings, provider schema). */
  resolveStatic(tool: Tool): Resolution;
  /** Whether a tool is offered to the model and listed as callable. */
  isVisible(tool: Tool): boolean;
  /** The full resolution for one call; `services` are the calling agent's (delegate's types). */
  resolve(
    tool: Tool,
    args: ToolArgs,
    services?: Readonly<Record<string, unknown>>,
  ): Promise<PolicyResolution>;
}

/** Resolves allow / ask / deny for tool calls under a config and mode. */
export class ToolPolicy implements Policy {
  readonly config: Config;
  readonly worktree: string;
  readonly mode: string;
  readonly headless: HeadlessAnswer | undefined;
  readonly approvals: SessionApprovals | undefined;
  /** Set for a mode with `read_only: true` (`plan`): only tools proven read-only run. */
  readonly isReadOnly: boolean;
  readonly #toolPermission: Record<string, Action | string[]>;
  readonly #modeKeys: Set<string>;
  readonly #allow: string[];
  readonly #deny: string[];
  #globalConfigDirs: Promise<string[]> | null = null;
  readonly #modelHost: string | null;

  constructor(options: PolicyOptions) {
    this.config = options.config;
    this.worktree = options.worktree;
    this.headless = options.headless;
    this.approvals = options.approvals;
    this.mode = options.mode ?? options.config.get("mode");
    const modeSpec = this.mode === "default" ? {} : findMode(options.config, this.mode);
    // plan promises read-only (serve.md's replio/plan, the REPL's mode line): a configured
    // `modes.plan` may add instructions or denies, never take that promise away.
    this.isReadOnly = modeSpec.read_only === true || this.mode === "plan";
    this.#toolPermission = { ...baseToolPermission(options.config) };
    this.#modeKeys = new Set(Object.keys(modeSpec.tool_permission ?? {}));
    Object.assign(this.#toolPermission, modeSpec.tool_permission ?? {});
    this.#deny = [...options.config.get("tools.deny"), ...(modeSpec.tools?.deny ?? [])];
    const modeAllow = modeSpec.tools?.allow ?? [];
    this.#allow = modeAllow.length ? modeAllow : [...options.config.get("tools.allow")];
    this.#modelHost = modelHostOf(options.config.get("base_url"), options.config.get("provider"));
  }

  /** The mode's instructions for the system prompt, if any. */
  get modeInstructions(): string {
    if (this.mode === "default") return "";
    return findMode(this.config, this.mode).instructions ?? "";
  }

  /** The name lists this policy applies, with their source, for `unknownToolNames`. */
  get nameLists(): ToolNameList[] {
    const modeTools = this.mode === "default" ? {} : findMode(this.config, this.mode).tools ?? {};
    const prefix = `modes.${this.mode}.tools`;
    return [
      { source: "tools.allow", names: this.config.get("tools.allow") },
      { source: "tools.deny", names: this.config.get("tools.deny") },
      { source: `${prefix}.allow`, names: modeTools.allow ?? [] },
      { source: `${prefix}.deny`, names: modeTools.deny ?? [] },
    ].filter((list) => list.names.length > 0);
  }

  /** The effective tool_permission table (mode merged). */
  get toolPermission(): Readonly<Record<string, Action | string[]>> {
    return this.#toolPermission;
  }

  /**
   * The action without arguments: what listings and the provider schema use. permissionFn and
   * worktree escalation need arguments and are skipped.
   */
  resolveStatic(tool: Tool, trace?: PolicyStep[]): Resolution {
    const byName = this.#resolveName(tool);
    trace?.push(
      byName ? { step: "name level", result: "deny", reason: byName.reason, key: byName.reason } : {
        step: "name level",
        result: "pass",
        reason: "not in tools.deny; tools.allow allows it",
      },
    );
    if (byName) return byName;
    const category = this.#sandboxedAction(tool) ?? this.#categoryAction(tool.permission);
    trace?.push({
      step: "category",
      result: category.action,
      reason: category.reason,
      // A mode's entry decides when the mode names the key; the base table otherwise.
      key: this.#modeKeys.has(tool.permission)
        ? `modes.${this.mode}`
        : `tool_permission.${tool.permission}`,
    });
    if (category.action === "deny") return category;
    const readOnly = this.#readOnlyDenial(tool, trace);
    if (readOnly) return readOnly;
    const denied = denoDenial(tool, this.worktree, this.#modelHost);
    trace?.push({
      step: "deno layer",
      result: denied ? "deny" : "pass",
      reason: denied?.reason ?? "the process holds the grants the tool declares",
    });
    if (denied) return denied;
    // Declared on the tool, so listings show the rule that calls will follow.
    if (tool.alwaysAsk && category.action === "allow") {
      trace?.push({ step: "always asks", result: "ask", reason: tool.alwaysAsk });
      return { action: "ask", reason: tool.alwaysAsk };
    }
    return category;
  }

  /** Whether a tool is offered to the model and listed as callable. */
  isVisible(tool: Tool): boolean {
    return this.resolveStatic(tool).action !== "deny";
  }

  /**
   * In a read-only mode, the denial of a tool not proven read-only. After the category, so a
   * mode's own deny (`plan` denies edit and bash) keeps its plainer reason; before everything
   * that could allow, as nothing a mode, an agent type or a person says lifts it.
   */
  #readOnlyDenial(tool: Tool, trace?: PolicyStep[]): Resolution | null {
    if (!this.isReadOnly) return null;
    const evidence = readOnlyEvidence(tool);
    trace?.push({
      step: "read-only mode",
      result: evidence.isReadOnly ? "pass" : "deny",
      reason: evidence.reason,
      key: `modes.${this.mode}`,
    });
    if (evidence.isReadOnly) return null;
    return { action: "deny", reason: `mode ${this.mode} is read-only and ${evidence.reason}` };
  }

  /** The full resolution for one call with its cleaned arguments. */
  async resolve(
    tool: Tool,
    args: ToolArgs,
    services: Readonly<Record<string, unknown>> = {},
    trace?: PolicyStep[],
  ): Promise<PolicyResolution> {
    const base = this.resolveStatic(tool, trace);
    if (base.action === "deny") return base;
    let result: PolicyResolution = base;
    if (tool.permissionFn) {
      const refined = await tool.permissionFn(args, {
        config: this.config,
        worktree: this.worktree,
        base,
        toolPermission: this.#toolPermission,
        services,
      });
      result = typeof refined === "string" ? { action: refined, reason: "permission_fn" } : refined;
      trace?.push({
        step: "permission_fn",
        result: result.action,
        reason: result.reason,
        ...(result.setting ? { key: result.setting } : {}),
      });
    }
    const unescalated = result.reason;
    const pathValue = tool.pathArg ? args[tool.pathArg] : undefined;
    if (typeof pathValue === "string" && isPathScoped(tool.permission)) {
      const path = await resolveToolPath(pathValue, this.worktree);
      result = { ...result, path };
      const outside = result.action === "allow" && !isInside(path, this.worktree);
      if (outside) result = { action: "ask", reason: "outside worktree", path };
      trace?.push({
        step: "worktree",
        result: outside ? "ask" : "pass",
        reason: `${path} is ${isInside(path, this.worktree) ? "inside" : "outside"} the worktree`,
      });
      if (tool.permission === "edit" && result.action !== "deny") {
        result = await this.#protect(result, absoluteToolPath(pathValue, this.worktree), path);
        trace?.push({
          step: "protected path",
          result: result.protectedPath ? "ask" : "pass",
          reason: result.protectedPath
            ? `${result.protectedPath} is protected: only a person may approve it`
            : "not .git, .replio or the global config folder",
        });
      }
    }
    // Last: a person's "always" can only turn an ask into an allow, never lift a deny or an
    // escalation (those ask every time).
    if (!this.approvals || result.action !== "ask" || result.reason !== unescalated) return result;
    const rule = await this.approvals.match(tool, args, result.path, this.worktree);
    if (rule) {
      trace?.push({ step: "always rules", result: "allow", reason: describeRule(rule) });
      return { ...result, action: "allow", reason: `approved: ${describeRule(rule)}` };
    }
    return { ...result, rememberable: true };
  }

  /** The last step: no setting, mode or agent type approves a write to a protected path. */
  async #protect(
    result: PolicyResolution,
    given: string,
    resolved: string,
  ): Promise<PolicyResolution> {
    this.#globalConfigDirs ??= globalConfigDirs(this.worktree);
    const hit = protectedPath([given, resolved], this.worktree, await this.#globalConfigDirs);
    if (hit === null) return result;
    return { action: "ask", reason: `protected path ${hit}`, path: resolved, protectedPath: hit };
  }

  /** tools.deny and tools.allow name a tool or any of its aliases (`bash` is run_command). */
  #resolveName(tool: Tool): Resolution | null {
    const names = [
      tool.name,
      ...(tool.aliases ?? []).map((a) => typeof a === "string" ? a : a.name),
    ];
    if (names.some((name) => this.#deny.includes(name))) {
      return { action: "deny", reason: "tools.deny" };
    }
    if (this.#allow.length && !names.some((name) => this.#allow.includes(name))) {
      return { action: "deny", reason: "tools.allow" };
    }
    return null;
  }

  /**
   * `tool_permission.<key>_sandboxed` (the `sandboxed` mode sets `bash_sandboxed: allow`): the
   * action for a tool whose calls run inside the OS sandbox now; null when unset or unsandboxed.
   */
  #sandboxedAction(tool: Tool): Resolution | null {
    const key = `${tool.permission}_sandboxed`;
    const value = this.#toolPermission[key];
    if (typeof value !== "string") return null;
    const isolation = toolIsolation(tool, this.config, this.worktree);
    if (!isolation.startsWith("bwrap(")) return null;
    return { action: value, reason: `tool_permission.${key} (${isolation})` };
  }

  #categoryAction(key: PermissionKey): Resolution {
    const value = this.#toolPermission[key];
    const action: Action = typeof value === "string" ? value : "ask";
    const reason = this.#modeKeys.has(key) ? `mode ${this.mode}` : `tool_permission.${key}`;
    return { action, reason };
  }
}

/** Read, list and edit tools are judged on where their path points; others are not. */
function isPathScoped(key: PermissionKey): boolean {
  return key === "read" || key === "list" || key === "edit";
}

function baseToolPermission(config: Config): Record<string, Action | string[]> {
  const table: Record<string, Action | string[]> = {};
  for (const [name, setting] of config.entries()) {
    if (name.startsWith("tool_permission.")) {
      table[name.slice("tool_permission.".length)] = setting.value as Action | string[];
    }
  }
  return table;
}

/** Every mode name known under this config: built-in and configured. */
export function modeNames(config: Config): string[] {
  return [
    "default",
    ...new Set([...Object.keys(BUILTIN_MODES), ...Object.keys(config.get("modes"))]),
  ];
}

function findMode(config: Config, name: string): ModeSpec {
  const spec = (config.get("modes") as Record<string, ModeSpec>)[name] ?? BUILTIN_MODES[name];
  if (!spec) {
    throw new ConfigError(
      `Cannot use mode "${name}": no such mode: use one of ${modeNames(config).join(", ")}`,
    );
  }
  return spec;
}
