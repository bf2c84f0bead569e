/**
 * Configuration: the defaults table, loading and merging with origins, validation.
 * @module
 */
export {
  Config,
  ConfigError,
  type FolderTrust,
  type IgnoredProject,
  type Setting,
  type TrustAnswer,
} from "./config.ts";
export {
  AGENT_SCHEMA,
  CONFIG_KEYS,
  type ConfigKey,
  type ConfigValue,
  type KeySpec,
  MODE_SCHEMA,
  type Origin,
} from "./defaults.ts";
export {
  type KeyPath,
  parseCliValue,
  setConfigValue,
  splitKeyPath,
  unsetConfigValue,
} from "./config_file.ts";
export { describeSchema } from "./describe_schema.ts";
export {
  type ConfigPaths,
  configPaths,
  editDistance,
  flattenConfig,
  loadConfig,
  parseConfigText,
  readConfigFile,
  suggestKey,
  validateValue,
  valueProblem,
} from "./load.ts";
export { describeProjectSettings, formatTrustNotice, TRUSTED_FOLDERS_KEY } from "./trust.ts";
export { addTrustedFolder, readTrustedFolders, removeTrustedFolder } from "./trusted_folders.ts";
