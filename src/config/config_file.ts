/**
 * Edits one YAML config file for `replio config set|unset`: comments and other keys are kept,
 * the whole result is validated before anything is written, and the write is atomic.
 * @module
 */
import { dirname } from "../fs/path.ts";
import type { Document } from "yaml";
import { writeFileAtomic } from "../fs/write_file_atomic.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { describeWrongKind, isWrongKind } from "../fs/wrong_kind.ts";
import { ConfigError } from "./config.ts";
import { CONFIG_KEYS, type ConfigKey } from "./defaults.ts";
import { parseConfigText, suggestKey, valueProblem } from "./load.ts";

/** A dotted path split into the table key it belongs to and the part beneath it. */
export interface KeyPath {
  /** The defaults-table key, e.g. `modes`. */
  key: ConfigKey;
  /** Names beneath an object-valued key, e.g. `["review"]` for `modes.review`. */
  rest: string[];
}

/**
 * Splits a dotted name into its table key and the path beneath it; throws a
 * {@link ConfigError} starting with `failure` and suggesting a key when it is unknown.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitKeyPath("tool_permission.bash"), { key: "tool_permission.bash", rest: [] });
 * assert.deepEqual(splitKeyPath("modes.review"), { key: "modes", rest: ["review"] });
 * ```
 */
export function splitKeyPath(name: string, failure = `Cannot use "${name}"`): KeyPath {
  const parts = name.split(".");
  for (let i = parts.length; i > 0; i--) {
    const key = parts.slice(0, i).join(".");
    if (!(key in CONFIG_KEYS)) continue;
    const rest = parts.slice(i);
    const schema = CONFIG_KEYS[key as ConfigKey].schema as { type?: string };
    if (rest.length && schema.type !== "object") {
      throw new ConfigError(`${failure}: "${key}" holds one value, not keys: use "${key}" itself`);
    }
    return { key: key as ConfigKey, rest };
  }
  throw new ConfigError(`${failure}: unknown key${suggestKey(name)}`);
}

/**
 * Parses a command-line value as YAML (`true`, `3`, `[a, b]`, `{"x": 1}`); where the key wants
 * a string and the YAML reading is not one, the text itself is the value (`model 4` → `"4"`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(await parseCliValue("tools.deny", "[bash, web_fetch]"), ["bash", "web_fetch"]);
 * assert.equal(await parseCliValue("model", "4"), "4");
 * assert.equal(await parseCliValue("max_rounds", "4"), 4);
 * ```
 */
export async function parseCliValue(
  name: string,
  text: string,
  file = "the config",
): Promise<unknown> {
  const [{ parseDocument }, { Value }] = await Promise.all([
    import("yaml"),
    import("@sinclair/typebox/value"),
  ]);
  const { key, rest } = splitKeyPath(name, `Cannot set "${name}" in ${file}`);
  const doc = parseDocument(text);
  const parseError = doc.errors[0] ? firstLine(doc.errors[0].message) : null;
  const parsed: unknown = parseError ? undefined : doc.toJS();
  if (rest.length === 0) {
    const schema = CONFIG_KEYS[key].schema;
    if ((parseError || !Value.Check(schema, parsed)) && Value.Check(schema, text)) return text;
  }
  if (parseError) {
    throw new ConfigError(
      `Cannot set "${name}" in ${file}: the value is not valid YAML: ${parseError}: ` +
        `quote it or write valid YAML or JSON`,
    );
  }
  return parsed;
}

/**
 * Sets `name` to `value` in the config file `file` (created with its folder when missing),
 * keeping comments and other keys. Throws a {@link ConfigError} and writes nothing when the
 * value or the resulting file is invalid.
 */
export async function setConfigValue(file: string, name: string, value: unknown): Promise<void> {
  const { key, rest } = splitKeyPath(name, `Cannot set "${name}" in ${file}`);
  if (rest.length === 0) {
    const problem = await valueProblem(key, value);
    if (problem) throw new ConfigError(`Cannot set "${name}" in ${file}: ${problem}`);
  }
  const doc = await readDocument(file);
  const flat = findFlatSpelling(doc, key);
  if (flat) doc.setIn([flat, ...rest], value);
  else doc.setIn([...key.split("."), ...rest], value);
  await writeValidated(file, doc.toString());
}

/**
 * Removes `name` from the config file, and any mapping left empty above it; returns whether the
 * file held it. Writes nothing when the key was absent.
 */
export async function unsetConfigValue(file: string, name: string): Promise<boolean> {
  const { key, rest } = splitKeyPath(name, `Cannot unset "${name}" in ${file}`);
  const { isMap } = await import("yaml");
  const doc = await readDocument(file);
  const paths = [[...key.split("."), ...rest]];
  const flat = findFlatSpelling(doc, key);
  if (flat) paths.unshift([flat, ...rest]);
  let removed = false;
  for (const path of paths) {
    if (!doc.hasIn(path)) continue;
    doc.deleteIn(path);
    removed = true;
    // A parent mapping the key leaves empty would read as `tool_permission: {}`: drop it too.
    for (let depth = path.length - 1; depth > 0; depth--) {
      const parent = doc.getIn(path.slice(0, depth));
      if (!isMap(parent) || parent.items.length > 0) break;
      doc.deleteIn(path.slice(0, depth));
    }
  }
  if (!removed) return false;
  await writeValidated(
    file,
    isMap(doc.contents) && doc.contents.items.length === 0 ? "" : doc.toString(),
  );
  return true;
}

async function readDocument(file: string): Promise<Document> {
  let text = "";
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (isWrongKind(error)) {
      throw new ConfigError(`Cannot edit ${file}: ${describeWrongKind(file, { named: true })}`);
    }
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  // The file as it stands must already be valid (so its top level is a mapping or empty):
  // editing around a broken file would hide the breakage.
  await parseConfigText(text, file);
  const { parseDocument } = await import("yaml");
  return parseDocument(text);
}

/** A file may spell a nested key flat (`"tool_permission.bash": ask`); edit it where it is. */
function findFlatSpelling(doc: Document, key: ConfigKey): string | null {
  return key.includes(".") && doc.has(key) ? key : null;
}

/** Validates the whole new text as the loader will read it, then replaces the file atomically. */
async function writeValidated(file: string, text: string): Promise<void> {
  await parseConfigText(text, file);
  const target = await followSymlink(file);
  try {
    await Deno.mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, text);
  } catch (error) {
    // writeFileAtomic already names the file; a failed mkdir does not.
    if (!isAccessError(error) || error.message.startsWith("Cannot write")) throw error;
    // Kept an access error, so the CLI reports it in one line (exit 1) like any other.
    throw new Deno.errors.PermissionDenied(
      `Cannot write "${target}": ${describeAccessError(error)}`,
    );
  }
}

/** A config file kept in a dotfiles repository is often a symlink: edit what it points to. */
async function followSymlink(file: string): Promise<string> {
  try {
    return await Deno.realPath(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return file;
    throw error;
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim().replace(/:$/, "");
}
