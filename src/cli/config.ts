/**
 * `replio config get|set|unset [KEY [VALUE]] [--global] [--show-origin]`: reads the merged
 * configuration and edits the local (or global) YAML file, keeping its comments.
 * @module
 */
import {
  type Config,
  type ConfigKey,
  configPaths,
  formatTrustNotice,
  loadConfig,
  parseCliValue,
  readConfigFile,
  setConfigValue,
  type Setting,
  splitKeyPath,
  TRUSTED_FOLDERS_KEY,
  unsetConfigValue,
} from "../config/mod.ts";
import { EXIT, UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** Options of `replio config`. */
export interface ConfigCommandOptions {
  global?: boolean;
  showOrigin?: boolean;
  path?: string;
  /** `--trust`: show the config as a trusted folder would load it. */
  trust?: boolean;
}

/** Runs one config action; exit 0, or 1 when `get`/`unset` finds no such value. */
export async function runConfigCommand(
  action: string,
  key: string | undefined,
  value: string | undefined,
  options: ConfigCommandOptions,
): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const file = chosenConfigFile(worktree, options.global ?? false);
  if (!options.global && key?.split(".")[0] === TRUSTED_FOLDERS_KEY && action !== "get") {
    // A project file could otherwise extend trust to other folders; the loader ignores it too.
    throw new UsageError(
      `Cannot ${action} "${TRUSTED_FOLDERS_KEY}" in ${file}: it is only read from the global config: use replio trust, or --global`,
    );
  }
  switch (action) {
    case "get": {
      if (value !== undefined) throw usage(`"get" takes one key, got also "${value}"`);
      if (options.global) {
        return await printConfig(await globalOnly(file), key, options.showOrigin ?? false);
      }
      const config = await loadConfig({ worktree, trust: options.trust });
      const notice = formatTrustNotice(config.trust);
      if (notice) await writeErr(notice + "\n");
      return await printConfig(config, key, options.showOrigin ?? false);
    }
    case "set": {
      if (key === undefined || value === undefined) throw usage(`"set" needs a key and a value`);
      await setConfigValue(file, key, await parseCliValue(key, value, file));
      if (!options.global) await warnIfUntrusted(worktree, file, options.trust);
      return EXIT.ok;
    }
    case "unset": {
      if (key === undefined || value !== undefined) throw usage(`"unset" takes one key`);
      if (await unsetConfigValue(file, key)) return EXIT.ok;
      await writeErr(`replio: "${key}" is not set in ${file}\n`);
      return EXIT.failed;
    }
    default:
      throw usage(`unknown action "${action}"`);
  }
}

/** A local value written in an untrusted folder does not load: say so, or it looks ignored. */
async function warnIfUntrusted(
  worktree: string,
  file: string,
  trust: boolean | undefined,
): Promise<void> {
  if (trust || (await loadConfig({ worktree })).trust.trusted) return;
  await writeErr(
    `replio: wrote ${file}, but this folder is not trusted, so that file is not loaded: ` +
      `run "replio trust" to load it\n`,
  );
}

function usage(problem: string): UsageError {
  return new UsageError(
    `Cannot run config: ${problem}: use get [KEY], set KEY VALUE or unset KEY`,
  );
}

/** The global file's own values, shown by `get --global` (defaults left out). */
async function globalOnly(file: string): Promise<Map<ConfigKey, Setting>> {
  const values = await readConfigFile(file);
  return new Map(
    Object.entries(values).map(([k, v]) => [k as ConfigKey, { value: v, origin: "global", file }]),
  );
}

async function printConfig(
  source: Config | Map<ConfigKey, Setting>,
  name: string | undefined,
  showOrigin: boolean,
): Promise<number> {
  const entries = source instanceof Map ? [...source.entries()] : source.entries();
  const originOf = (s: Setting) =>
    showOrigin ? `${s.file ? `${s.origin}:${s.file}` : s.origin}\t` : "";
  if (name === undefined) {
    const lines = entries.map(([k, s]) => `${originOf(s)}${k} = ${JSON.stringify(s.value)}\n`);
    const trust = source instanceof Map ? null : source.trust;
    const ignored = trust?.ignored;
    if (showOrigin && ignored?.configFile) {
      const why = trust!.trusted ? "global config only" : "untrusted folder";
      // What the local file would set, so `--show-origin` explains a value that did not apply.
      lines.push(
        ...Object.entries(ignored.values).map(([k, v]) =>
          `ignored (${why}):${ignored.configFile}\t${k} = ${JSON.stringify(v)}\n`
        ),
      );
    }
    await writeOut(lines.join(""));
    return EXIT.ok;
  }
  const { key, rest } = splitKeyPath(name, `Cannot get "${name}"`);
  const setting = entries.find(([k]) => k === key)?.[1];
  let value = setting?.value;
  for (const part of rest) {
    value = isRecord(value) ? value[part] : undefined;
  }
  if (setting === undefined || value === undefined) {
    await writeErr(`replio: "${name}" is not set\n`);
    return EXIT.failed;
  }
  await writeOut(`${originOf(setting)}${formatValue(value)}\n`);
  return EXIT.ok;
}

/** Strings print bare so scripts can use them; everything else prints as JSON. */
function formatValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}

/** The file a command writes: the worktree's `.replio/config.yaml`, or the global one. */
export function chosenConfigFile(worktree: string, global: boolean): string {
  const paths = configPaths(worktree);
  const file = global ? paths.global : paths.local;
  if (file === null) {
    throw new UsageError(
      "Cannot use --global: neither XDG_CONFIG_HOME nor HOME can be read: run replio with --allow-env",
    );
  }
  return file;
}
