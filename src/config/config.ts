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

/** Raised for bad configuration files, keys or values; the CLI maps it to exit 2. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Immutable merged configuration; `get` is typed by the defaults table. */
export class Config {
  readonly #settings: ReadonlyMap<string, Setting>;

  constructor(settings: ReadonlyMap<string, Setting>) {
    this.#settings = settings;
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
    return new Config(settings);
  }
}
