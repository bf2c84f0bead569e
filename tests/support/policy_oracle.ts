/**
 * What docs/security.md promises about a drawn world, computed from the drawn settings alone
 * (not from src/tools/policy.ts): whether the folder is trusted, which mode applies, the
 * effective name lists and permission table, and so which calls an explicit deny must stop.
 * tests/security/policy_properties_test.ts checks replio against it.
 * @module
 */
import {
  type Action,
  type DrawnConfig,
  type DrawnLayer,
  type DrawnMode,
  TRUSTING_ENTRIES,
} from "./policy_draws.ts";

/** The documented defaults of the permission keys drawn (docs/config.md). */
const DEFAULT_TABLE: Record<string, Action> = {
  read: "allow",
  list: "allow",
  edit: "allow",
  bash: "ask",
};

/** The built-in modes as docs/security.md describes them. */
const BUILTIN_MODES: Record<string, DrawnMode> = {
  plan: { tool_permission: { edit: "deny", bash: "deny" } },
  sandboxed: { tool_permission: { bash_sandboxed: "allow" } },
  "accept-edits": { tool_permission: { edit: "allow", bash: "ask" } },
};

const STRICTNESS: readonly Action[] = ["deny", "ask", "allow"];

/** The policy a drawn world should have under one mode. */
export interface ExpectedPolicy {
  isTrusted: boolean;
  mode: string;
  /** False when no loaded layer defines the mode: replio must refuse it with a clear error. */
  isModeKnown: boolean;
  /** The mode is the built-in plan, which no loaded config redefined. */
  isBuiltinPlan: boolean;
  deny: ReadonlySet<string>;
  allow: readonly string[];
  table: Readonly<Record<string, Action | string[]>>;
}

/** The tool facts the oracle reads. */
export interface OracleTool {
  name: string;
  permission: string;
  aliases?: readonly (string | { name: string })[] | undefined;
}

/** The policy `drawn` should give under the mode named on the command line (if any). */
export function expectPolicy(drawn: DrawnConfig, modeFlag: string | undefined): ExpectedPolicy {
  const isTrusted = drawn.trustFlag ||
    drawn.trustedFolders.some((entry) => TRUSTING_ENTRIES.includes(entry));
  const global = drawn.global;
  const project: DrawnLayer | null = typeof drawn.project === "object" ? drawn.project : null;
  const table: Record<string, Action | string[]> = { ...DEFAULT_TABLE, ...global.permissions };
  if (global.bashAllow) table.bash_allow = global.bashAllow;
  let deny = global.deny ?? [];
  let allow = global.allow ?? [];
  const modes: Record<string, DrawnMode> = { ...BUILTIN_MODES, ...global.modes };
  let mode = global.mode;
  if (project && isTrusted) {
    // A trusted project is a later layer: each key it sets replaces the user's.
    Object.assign(table, project.permissions);
    if (project.bashAllow) table.bash_allow = project.bashAllow;
    deny = project.deny ?? deny;
    allow = project.allow ?? allow;
    Object.assign(modes, project.modes);
    mode = project.mode ?? mode;
  } else if (project) {
    // Untrusted: its deny list adds to the user's, and only stricter actions are taken.
    deny = [...deny, ...project.deny ?? []];
    for (const [key, action] of Object.entries(project.permissions)) {
      if (STRICTNESS.indexOf(action) < STRICTNESS.indexOf(table[key] as Action)) {
        table[key] = action;
      }
    }
  }
  const name = modeFlag ?? mode ?? "default";
  const spec = name === "default" ? {} : modes[name];
  Object.assign(table, spec?.tool_permission);
  const modeAllow = spec?.tools?.allow ?? [];
  return {
    isTrusted,
    mode: name,
    isModeKnown: spec !== undefined,
    isBuiltinPlan: name === "plan" && modes.plan === BUILTIN_MODES.plan,
    deny: new Set([...deny, ...spec?.tools?.deny ?? []]),
    allow: modeAllow.length ? modeAllow : allow,
    table,
  };
}

/**
 * Why `tool` must be denied whatever allows it or answers for it — `tools.deny` names it (or an
 * alias), `tools.allow` leaves it out, or the setting that applies says deny — or null. The
 * setting that applies is `<key>_sandboxed` while the tool runs in the OS sandbox and the
 * table has one, else `<key>` (docs/sandbox.md).
 */
export function requiredDenial(
  expected: ExpectedPolicy,
  tool: OracleTool,
  isSandboxed: boolean,
): string | null {
  const names = [tool.name, ...(tool.aliases ?? []).map((a) => typeof a === "string" ? a : a.name)];
  const denied = names.find((name) => expected.deny.has(name));
  if (denied) return `tools.deny names ${denied}`;
  if (expected.allow.length && !names.some((name) => expected.allow.includes(name))) {
    return `tools.allow [${expected.allow.join(", ")}] leaves it out`;
  }
  const sandboxed = `${tool.permission}_sandboxed`;
  const key = isSandboxed && typeof expected.table[sandboxed] === "string"
    ? sandboxed
    : tool.permission;
  return expected.table[key] === "deny" ? `tool_permission.${key} is deny` : null;
}
