/**
 * Random policy worlds for tests/security/policy_properties_test.ts: a user's global config, a
 * project's `.replio/config.yaml`, how the folder is (or is not) trusted, and the mode a call
 * runs under, all drawn from one seeded generator so that a failure reruns from its seed. Draws
 * are plain data; tests/support/policy_world.ts makes them real files, and
 * tests/support/policy_call_draws.ts draws the calls.
 * @module
 */
import { seededRandom } from "./seeded_random.ts";

/** A policy action. */
export type Action = "allow" | "ask" | "deny";

/** Choices from one seeded sequence. */
export interface Draw {
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Up to `max` distinct items, in a random order. */
  some<T>(items: readonly T[], max: number): T[];
}

/** A draw from `seed`: the same seed gives the same choices. */
export function createDraw(seed: number): Draw {
  const next = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return {
    chance: (probability) => next() < probability,
    pick,
    some(items, max) {
      const left = [...items];
      const chosen = [];
      for (let n = Math.floor(next() * (max + 1)); n > 0 && left.length; n--) {
        chosen.push(left.splice(Math.floor(next() * left.length), 1)[0]!);
      }
      return chosen;
    },
  };
}

/** The permission keys drawn in configs and modes (the bundled tools drawn use these). */
export const PERMISSION_KEYS = ["read", "list", "edit", "bash"] as const;
const ACTIONS: readonly Action[] = ["allow", "ask", "deny"];
const BASH_ALLOW_LISTS = [["touch"], ["touch", "echo"], ["ls", "touch"], ["echo"]];

/** A mode as a config file declares it. */
export interface DrawnMode {
  tool_permission?: Record<string, Action | string[]>;
  tools?: { allow?: string[]; deny?: string[] };
}

/** What one config file sets (only the keys the policy reads, and a few that run things). */
export interface DrawnLayer {
  deny?: string[];
  allow?: string[];
  permissions: Record<string, Action>;
  bashAllow?: string[];
  modes?: Record<string, DrawnMode>;
  mode?: string;
}

/**
 * An entry of the global `trusted_folders`: the worktree, its parent, a link to the worktree,
 * a sibling, a sibling whose name is a prefix of the worktree's, a relative path (ignored).
 */
export type TrustEntry = "worktree" | "parent" | "link" | "sibling" | "prefix" | "relative";

/** Every entry kind that trusts the worktree. */
export const TRUSTING_ENTRIES: readonly TrustEntry[] = ["worktree", "parent", "link"];

/** One drawn world: the two config files and how the folder is trusted. */
export interface DrawnConfig {
  global: DrawnLayer;
  /** The project's file: settings, a file that is not valid YAML, or none. */
  project: DrawnLayer | "invalid" | null;
  trustedFolders: TrustEntry[];
  /** The project lists its own folder in `trusted_folders` (it must not count). */
  projectTrustsItself: boolean;
  /** `--trust` on the command line. */
  trustFlag: boolean;
  sandbox: "off" | "auto";
}

/**
 * The mode a call runs under (`--mode`), or undefined to leave it to the config's `mode` key:
 * the built-in ones, the ones the world's files define (a project's may not load), and now and
 * then one that no file defines.
 */
export function drawMode(draw: Draw, drawn: DrawnConfig): string | undefined {
  const defined = [drawn.global, drawn.project].flatMap((layer) =>
    typeof layer === "object" && layer !== null ? Object.keys(layer.modes ?? {}) : []
  );
  if (draw.chance(0.03)) return "nonexistent";
  return draw.pick([
    undefined,
    undefined,
    "default",
    "plan",
    "plan",
    "accept-edits",
    "sandboxed",
    ...defined,
  ]);
}

/** Draws a world; `names` are the drawn tools' names and aliases (for tools.deny / allow). */
export function drawConfig(draw: Draw, names: readonly string[]): DrawnConfig {
  const project = draw.chance(0.05) ? "invalid" : draw.chance(0.85) ? drawLayer(draw, names) : null;
  if (typeof project === "object" && project !== null && draw.chance(0.25)) {
    // The attack docs/security.md names: a project that redefines plan to allow edits.
    project.modes = {
      ...project.modes,
      plan: { tool_permission: { edit: "allow", bash: "allow" } },
    };
  }
  if (typeof project === "object" && project !== null && draw.chance(0.2)) {
    project.mode = draw.pick(["accept-edits", "sandboxed", "proj", "default"]);
  }
  const global = drawLayer(draw, names);
  if (draw.chance(0.15)) global.mode = draw.pick(["plan", "accept-edits", "review"]);
  return {
    global,
    project,
    trustedFolders: draw.some(
      ["worktree", "parent", "link", "sibling", "prefix", "relative"] as const,
      2,
    ),
    projectTrustsItself: draw.chance(0.2),
    trustFlag: draw.chance(0.15),
    sandbox: draw.chance(0.75) ? "off" : "auto",
  };
}

function drawLayer(draw: Draw, names: readonly string[]): DrawnLayer {
  const layer: DrawnLayer = { permissions: {} };
  if (draw.chance(0.4)) layer.deny = draw.some(names, 3);
  if (draw.chance(0.1)) layer.allow = draw.some(names, 8);
  for (const key of PERMISSION_KEYS) {
    if (draw.chance(0.3)) layer.permissions[key] = draw.pick(ACTIONS);
  }
  if (draw.chance(0.3)) layer.bashAllow = draw.pick(BASH_ALLOW_LISTS);
  if (draw.chance(0.5)) {
    const mode: DrawnMode = { tool_permission: {} };
    for (const key of [...PERMISSION_KEYS, "bash_sandboxed"]) {
      if (draw.chance(0.35)) mode.tool_permission![key] = draw.pick(ACTIONS);
    }
    if (draw.chance(0.15)) mode.tool_permission!.bash_allow = draw.pick(BASH_ALLOW_LISTS);
    if (draw.chance(0.3)) mode.tools = { deny: draw.some(names, 2) };
    if (draw.chance(0.1)) mode.tools = { ...mode.tools, allow: draw.some(names, 8) };
    layer.modes = { [draw.chance(0.5) ? "review" : "proj"]: mode };
  }
  return layer;
}

/**
 * A config file's YAML: block mappings, with lists and scalars as JSON (valid YAML), so a
 * person reading a failure sees the file as a user would write it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(layerYaml({ permissions: { edit: "deny" }, deny: ["bash"] }),
 *   'tools:\n  deny: ["bash"]\ntool_permission:\n  edit: "deny"\n');
 * ```
 */
export function layerYaml(layer: DrawnLayer, extra: Record<string, unknown> = {}): string {
  const document: Record<string, unknown> = {};
  const tools = {
    ...(layer.deny ? { deny: layer.deny } : {}),
    ...(layer.allow ? { allow: layer.allow } : {}),
  };
  if (Object.keys(tools).length) document.tools = tools;
  const permissions: Record<string, unknown> = { ...layer.permissions };
  if (layer.bashAllow) permissions.bash_allow = layer.bashAllow;
  if (Object.keys(permissions).length) document.tool_permission = permissions;
  if (layer.modes) document.modes = layer.modes;
  if (layer.mode) document.mode = layer.mode;
  return blockYaml({ ...document, ...extra }, "");
}

function blockYaml(value: Record<string, unknown>, indent: string): string {
  let text = "";
  for (const [key, inner] of Object.entries(value)) {
    const nested = typeof inner === "object" && inner !== null && !Array.isArray(inner);
    if (nested && Object.keys(inner).length) {
      text += `${indent}${key}:\n${blockYaml(inner as Record<string, unknown>, indent + "  ")}`;
    } else {
      text += `${indent}${key}: ${JSON.stringify(nested ? {} : inner)}\n`;
    }
  }
  return text;
}
