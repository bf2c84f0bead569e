/**
 * The effective configuration: every key of the defaults table with its value and origin.
 * @module
 */
import { CONFIG_KEYS, type ConfigKey, type ConfigValue, type Origin } from "./defaults.ts";

/** A configuration value with where it came from. */
export interface Setting {
  value: unknown;
  origin: Origin;
  /** The file that set it, for `global` and `local`. */
  file?: string;
}

/**
 * Whether the worktree's own settings (`.replio/config.yaml`, `.replio/agents/`) were loaded,
 * decided once when the config is loaded (docs/security.md, "Folder trust").
 */
export interface FolderTrust {
  /** The worktree trust was decided for. */
  worktree: string;
  /** The project's settings are loaded. */
  trusted: boolean;
  /** What trusted it: `--trust`, or the `trusted_folders` entry covering the worktree. */
  by: string | null;
  /** The project settings left out; null when there were none. */
  ignored: IgnoredProject | null;
}

/** What an untrusted worktree holds that replio did not load, for the notice and the REPL. */
export interface IgnoredProject {
  /** The project config file, when it exists. */
  configFile: string | null;
  /** Its values (dotted keys) that were not applied; the kept ones are not among them. */
  values: Record<string, unknown>;
  /** Its keys applied anyway because they only tighten (`tools.deny`, stricter actions). */
  kept: string[];
  /** Why the file could not be read, when it is not valid. */
  invalid: string | null;
  /** Agent type files in `.replio/agents/` that were not loaded. */
  agentFiles: string[];
  /** `.replio/plugins/` exists. */
  pluginsFolder: boolean;
  /** Relative entries of the global `plugins` list, which would load the worktree's code. */
  worktreePlugins: string[];
}

/** The answer to the trust question: add to trusted_folders, trust this run, or go on without. */
export type TrustAnswer = "always" | "once" | "no";

/** The trust of a config no worktree was loaded for: nothing of a project is trusted. */
export const NO_PROJECT: FolderTrust = { worktree: "", trusted: false, by: null, ignored: null };

/** Raised for bad configuration files, keys or values; the CLI maps it to exit 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Immutable merged configuration; `get` is typed by the defaults table. */
export class Config {
  readonly #settings: ReadonlyMap<string, Setting>;
  /** Whether the worktree's own settings were loaded, and what was left out. */
  readonly trust: FolderTrust;

  constructor(settings: ReadonlyMap<string, Setting>, trust: FolderTrust = NO_PROJECT) {
    this.#settings = settings;
    this.trust = trust;
  }

  /** The built-in defaults alone. */
  static defaults(): Config {
    const settings = new Map<string, Setting>();
    for (const [name, spec] of Object.entries(CONFIG_KEYS)) {
      settings.set(name, { value: spec.default, origin: "default" });
    }
    return new Config(settings);
  }

  /** The value of a key. */
  get<K extends ConfigKey>(key: K): ConfigValue<K> {
    return this.#settings.get(key)!.value as ConfigValue<K>;
  }

  /** The value and origin of a key. */
  setting(key: ConfigKey): Setting {
    return this.#settings.get(key)!;
  }

  /** Every key with its setting, in table order. */
  entries(): [ConfigKey, Setting][] {
    return (Object.keys(CONFIG_KEYS) as ConfigKey[]).map((k) => [k, this.#settings.get(k)!]);
  }

  /** A copy with some keys replaced (already validated), e.g. from command-line flags. */
  with(values: Partial<Record<ConfigKey, unknown>>, origin: Origin = "flag"): Config {
    const settings = new Map(this.#settings);
    for (const [name, value] of Object.entries(values)) {
      if (value !== undefined) settings.set(name, { value, origin });
    }
    return new Config(settings, this.trust);
  }
}
