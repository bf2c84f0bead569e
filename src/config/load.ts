/**
 * Reads the global and local YAML files, validates them against the defaults table and merges
 * defaults < global < local < flags (DESIGN.md §3). Folder trust is decided here, once: the
 * local file of an untrusted worktree is not merged, so nothing after this sees its settings.
 * @module
 */
import { join } from "../fs/path.ts";
import { describeWrongKind, isWrongKind } from "../fs/wrong_kind.ts";
import { Config, ConfigError, type FolderTrust, type Setting } from "./config.ts";
import { CONFIG_KEYS, type ConfigKey } from "./defaults.ts";
import { describeSchema } from "./describe_schema.ts";
import { quickCheck } from "../schema/type.ts";
import { parseYaml } from "./plain_yaml.ts";
import {
  findTrustingEntry,
  projectFolders,
  tighteningValues,
  TRUSTED_FOLDERS_KEY,
  worktreeRelativePlugins,
} from "./trust.ts";

/** Where the configuration files live. */
export interface ConfigPaths {
  global: string | null;
  local: string;
}

/** The global and local file paths for a worktree (global null without env access). */
export function configPaths(worktree: string): ConfigPaths {
  return { global: globalConfigPath(), local: join(worktree, ".replio", "config.yaml") };
}

function globalConfigPath(): string | null {
  const canRead = (name: string) =>
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
  if (canRead("XDG_CONFIG_HOME")) {
    const xdg = Deno.env.get("XDG_CONFIG_HOME");
    if (xdg) return join(xdg, "replio", "config.yaml");
  }
  if (!canRead("HOME")) return null;
  const home = Deno.env.get("HOME");
  return home ? join(home, ".config", "replio", "config.yaml") : null;
}

/** Options for {@link loadConfig}. */
export interface LoadOptions {
  worktree: string;
  /** Values from command-line flags; validated like file values. */
  flags?: Partial<Record<ConfigKey, unknown>>;
  /** Override the file locations (tests). */
  paths?: ConfigPaths;
  /** `--trust`: load the worktree's own settings for this run, listed in trusted_folders or not. */
  trust?: boolean | undefined;
}

/**
 * Loads the effective configuration. Throws {@link ConfigError} naming the file, the key and
 * what was expected.
 */
export async function loadConfig(options: LoadOptions): Promise<Config> {
  const paths = options.paths ?? configPaths(options.worktree);
  const settings = new Map<string, Setting>(
    Config.defaults().entries().map(([k, s]) => [k, s]),
  );
  if (paths.global !== null) {
    mergeInto(settings, await readConfigFile(paths.global), {
      origin: "global",
      file: paths.global,
    });
  }
  const trust = await mergeProjectFile(settings, paths.local, options);
  if (options.flags) {
    const flags = Object.fromEntries(
      Object.entries(options.flags).filter(([, v]) => v !== undefined),
    );
    for (const [k, v] of Object.entries(flags)) await validateValue(k, v, "the command line");
    mergeInto(settings, flags, { origin: "flag" });
  }
  return new Config(settings, trust);
}

/**
 * Merges the worktree's config file when the folder is trusted; otherwise only its values
 * that tighten the policy. Returns the trust decision with what was left out.
 */
async function mergeProjectFile(
  settings: Map<string, Setting>,
  file: string,
  options: LoadOptions,
): Promise<FolderTrust> {
  const { worktree } = options;
  const entries = settings.get(TRUSTED_FOLDERS_KEY)!.value as string[];
  const by = options.trust ? "--trust" : await findTrustingEntry(worktree, entries);
  const source = { origin: "local", file } as const;
  if (by !== null) {
    const values = await readConfigFile(file);
    // Trust is the user's to give: a project config cannot extend it to other folders.
    const { [TRUSTED_FOLDERS_KEY]: refused, ...rest } = values;
    mergeInto(settings, rest, source);
    const ignored = refused === undefined ? null : {
      configFile: file,
      values: { [TRUSTED_FOLDERS_KEY]: refused },
      kept: [],
      invalid: null,
      agentFiles: [],
      pluginsFolder: false,
      worktreePlugins: [],
    };
    return { worktree, trusted: true, by, ignored };
  }
  let values: Record<string, unknown> = {};
  let invalid: string | null = null;
  try {
    // An untrusted file is never loaded, so its mistakes must not stop replio either.
    values = await readConfigFile(file);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    invalid = error.message.replace(/^Cannot load [^:]*: /, "");
  }
  const kept = tighteningValues(settings, values);
  mergeInto(settings, kept, source);
  // Strings or pinned URL entries (objects), from the global config: the project's are not kept.
  const plugins = settings.get("plugins")!.value as (string | { url: string })[];
  const worktreePlugins = worktreeRelativePlugins(plugins);
  if (worktreePlugins.length) {
    settings.set("plugins", {
      ...settings.get("plugins")!,
      value: plugins.filter((p) => typeof p !== "string" || !worktreePlugins.includes(p)),
    });
  }
  const folders = await projectFolders(worktree);
  const leftOut = Object.fromEntries(Object.entries(values).filter(([k]) => !(k in kept)));
  const leftOutFile = Object.keys(leftOut).length > 0 || invalid !== null;
  const hasProject = leftOutFile || folders.agentFiles.length > 0 || folders.pluginsFolder ||
    worktreePlugins.length > 0;
  return {
    worktree,
    trusted: false,
    by: null,
    ignored: hasProject
      ? {
        configFile: leftOutFile ? file : null,
        values: leftOut,
        kept: Object.keys(kept),
        invalid,
        ...folders,
        worktreePlugins,
      }
      : null,
  };
}

function mergeInto(
  settings: Map<string, Setting>,
  values: Record<string, unknown>,
  source: Omit<Setting, "value">,
): void {
  for (const [k, value] of Object.entries(values)) {
    const spec = CONFIG_KEYS[k as ConfigKey];
    const previous = settings.get(k)?.value;
    const merged = "mergesPerEntry" in spec && spec.mergesPerEntry
      ? { ...(previous as object), ...(value as object) }
      : value;
    settings.set(k, { ...source, value: merged });
  }
}

/**
 * Reads one YAML file into validated dotted keys; a missing file, or one Deno may not read,
 * is empty. A folder in its place, or a file in place of one of its folders, is a
 * {@link ConfigError} naming the path: the settings the user meant would be silently lost.
 * @example
 * ```ts
 * // tools: {deny: [bash]}  →  { "tools.deny": ["bash"] }
 * ```
 */
export async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  // Asking first keeps Deno's own prompt away when replio was started without --no-prompt.
  if (Deno.permissions.querySync({ name: "read", path: file }).state !== "granted") return {};
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return {};
    if (isWrongKind(error)) {
      throw new ConfigError(`Cannot load ${file}: ${describeWrongKind(file, { named: true })}`);
    }
    throw error;
  }
  return await parseConfigText(text, file);
}

/**
 * Parses the YAML text of a config file into validated dotted keys; `file` names it in errors.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(await parseConfigText("tools: {deny: [bash]}", "x.yaml"), {
 *   "tools.deny": ["bash"],
 * });
 * ```
 */
export async function parseConfigText(
  text: string,
  file: string,
): Promise<Record<string, unknown>> {
  let document: unknown;
  try {
    document = await parseYaml(text);
  } catch (error) {
    // The yaml package puts a code excerpt after the first line; the first says it all.
    const detail = (error instanceof Error ? error.message : String(error)).split("\n")[0]!
      .trim().replace(/:$/, "");
    throw new ConfigError(`Cannot load ${file}: invalid YAML: ${detail}: fix the file's syntax`);
  }
  if (document === null || document === undefined) return {};
  if (!isPlainObject(document)) {
    throw new ConfigError(
      `Cannot load ${file}: the top level must be a mapping of keys: see docs/config.md`,
    );
  }
  const values = flattenConfig(document, file);
  for (const [k, v] of Object.entries(values)) await validateValue(k, v, file);
  return values;
}

/**
 * Flattens nested YAML into the table's dotted keys, rejecting unknown keys.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(flattenConfig({ dev: { test_cmd: "make test" } }, "x.yaml"), {
 *   "dev.test_cmd": "make test",
 * });
 * ```
 */
export function flattenConfig(
  document: Record<string, unknown>,
  file: string,
  prefix = "",
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(document)) {
    const dotted = prefix + name;
    if (dotted in CONFIG_KEYS) {
      out[dotted] = value;
    } else if (isPlainObject(value) && hasKeysUnder(dotted)) {
      Object.assign(out, flattenConfig(value, file, dotted + "."));
    } else {
      throw new ConfigError(
        `Cannot load ${file}: unknown key "${dotted}"${suggestKey(dotted)}`,
      );
    }
  }
  return out;
}

/** Throws a {@link ConfigError} unless `value` fits the key's schema. */
export async function validateValue(name: string, value: unknown, where: string): Promise<void> {
  const problem = await valueProblem(name, value);
  if (problem) throw new ConfigError(`Cannot load ${where}: ${problem}`);
}

/**
 * What is wrong with `value` for key `name` (unknown key, or what the schema expected), or
 * null when it fits.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(await valueProblem("max_rounds", 5), null);
 * assert.equal(
 *   await valueProblem("max_rounds", "ten"),
 *   '"max_rounds" must be an integer >= 1, got "ten": see docs/config.md',
 * );
 * ```
 */
export async function valueProblem(name: string, value: unknown): Promise<string | null> {
  const spec = CONFIG_KEYS[name as ConfigKey];
  if (!spec) return `unknown key "${name}"${suggestKey(name)}`;
  // Simple values (most flags: --model, --max-rounds) are checked here; TypeBox's validator
  // loads only for the rest and for failures, off the path to the first model request.
  // Rules beyond the schema (an MCP server's command or url) are checked once the shape fits.
  const check = (spec as { check?: (value: unknown) => string | null }).check;
  if (quickCheck(spec.schema, value)) return check?.(value) ?? null;
  const { Value, ValueErrorType } = await import("@sinclair/typebox/value");
  if (Value.Check(spec.schema, value)) return check?.(value) ?? null;
  const first = Value.Errors(spec.schema, value).First();
  if (!first || !first.path) {
    return `"${name}" must be ${describeSchema(spec.schema)}, got ${
      JSON.stringify(value)
    }: see docs/config.md`;
  }
  // Deep in a mode or agent entry: name the spot and what fits there, not the whole schema.
  if (first.type === ValueErrorType.ObjectAdditionalProperties) {
    const known = Object.keys((first.schema as { properties?: object }).properties ?? {});
    return `"${name}" at "${first.path}" is not a known setting: use one of ${
      known.join(", ")
    }: see docs/config.md`;
  }
  return `"${name}" at "${first.path}" must be ${describeSchema(first.schema)}, got ${
    JSON.stringify(first.value)
  }: see docs/config.md`;
}

function hasKeysUnder(prefix: string): boolean {
  return Object.keys(CONFIG_KEYS).some((k) => k.startsWith(prefix + "."));
}

/** ": did you mean "x"?" for a near key, or a pointer to the docs. */
export function suggestKey(name: string): string {
  let best = "";
  let bestDistance = Infinity;
  // Group names (`tool_permission`, `web`) are candidates too: a misspelt group is common.
  const groups = Object.keys(CONFIG_KEYS).filter((k) => k.includes(".")).map((k) =>
    k.slice(0, k.lastIndexOf("."))
  );
  for (const candidate of new Set([...Object.keys(CONFIG_KEYS), ...groups])) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, name.length / 3)
    ? `: did you mean "${best}"?`
    : ": see docs/config.md for the keys";
}

/**
 * Edit distance with adjacent swaps (optimal string alignment), for "did you mean" suggestions.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(editDistance("modle", "model"), 1);
 * assert.equal(editDistance("mode", "model"), 1);
 * ```
 */
export function editDistance(a: string, b: string): number {
  let previous: number[] = [];
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      // A swapped pair is the commonest typo ("modle"): count it as one edit, not two.
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        next[j] = Math.min(next[j]!, previous[j - 2]! + 1);
      }
    }
    previous = row;
    row = next;
  }
  return row[b.length]!;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
