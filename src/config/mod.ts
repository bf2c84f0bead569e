/**
 * Configuration: the defaults table, loading and merging with origins, validation.
 * @module
 */
export { Config, ConfigError, type Setting } from "./config.ts";
export {
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigValue,
  type KeySpec,
  type Origin,
} from "./defaults.ts";
export { describeSchema } from "./describe_schema.ts";
export {
  type ConfigPaths,
  configPaths,
  flattenConfig,
  loadConfig,
  readConfigFile,
  suggestKey,
  validateValue,
} from "./load.ts";
