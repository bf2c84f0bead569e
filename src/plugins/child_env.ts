/**
 * The environment of every process replio starts (run_command, the dev tools, git, MCP servers):
 * replio's own, less the variables whose names say they hold a secret. A prompt-injected
 * command would otherwise read the model API key, a GitHub token or a cloud secret with `env`.
 * @module
 */
import type { Config } from "../config/mod.ts";

/**
 * Names that look like they hold a secret, matched anywhere in the name, case ignored:
 * `OPENAI_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `GOOGLE_CREDENTIALS`.
 * Broad on purpose: a dropped harmless variable costs a `shell_env.keep` entry, a leaked key
 * costs a rotation.
 */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL/i;

/**
 * git's own numbered configuration variables (`GIT_CONFIG_KEY_0`) match `KEY` but hold setting
 * names; dropping them alone would leave `GIT_CONFIG_COUNT` pointing at missing entries, and
 * every git a child runs would fail.
 */
const NOT_SECRET = /^GIT_CONFIG_KEY_\d+$/;

/**
 * What a child inherits when replio may not read its whole environment (started with
 * `--allow-env=A,B`): those of these names it may read, nothing else.
 */
const BASIC_NAMES = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
];

/**
 * The names of the variables that hold replio's own keys: the value of `api_key_env` and of
 * every other `*_api_key_env` setting (the web search backends).
 */
export function apiKeyEnvNames(config: Config): string[] {
  const names: string[] = [];
  for (const [key, setting] of config.entries()) {
    if (!/(^|[._])api_key_env$/.test(key)) continue;
    if (typeof setting.value === "string" && setting.value !== "") names.push(setting.value);
  }
  return names;
}

/**
 * Whether a variable stays out of children: its name looks like a secret or names one of
 * replio's keys, and `shell_env.keep` does not list it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Config } from "../config/mod.ts";
 * const config = Config.defaults().with({ "shell_env.keep": ["GH_TOKEN"] });
 * assert.equal(isWithheld("GITHUB_TOKEN", config), true);
 * assert.equal(isWithheld("GH_TOKEN", config), false);
 * assert.equal(isWithheld("PATH", config), false);
 * ```
 */
export function isWithheld(name: string, config: Config): boolean {
  if (config.get("shell_env.keep").includes(name)) return false;
  if (apiKeyEnvNames(config).includes(name)) return true;
  return SECRET_NAME.test(name) && !NOT_SECRET.test(name);
}

/**
 * The whole environment for a child process: replio's own less withheld variables, with
 * `extra` over it (those are the caller's own settings and always kept). Spawn with
 * `clearEnv: true`, or Deno adds the withheld variables back.
 */
export function childEnv(
  config: Config,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(readableEnv())) {
    if (!isWithheld(name, config)) env[name] = value;
  }
  return { ...env, ...keptEnv(config), ...extra };
}

/** The variables `shell_env.keep` names that are set (and that replio may read). */
function keptEnv(config: Config): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of config.get("shell_env.keep")) {
    const value = readVariable(name);
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** replio's environment, or the part of it that it may read. */
function readableEnv(): Record<string, string> {
  if (Deno.permissions.querySync({ name: "env" }).state === "granted") return Deno.env.toObject();
  const env: Record<string, string> = {};
  for (const name of BASIC_NAMES) {
    const value = readVariable(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function readVariable(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") return;
  return Deno.env.get(name);
}
