/**
 * Checks model-given arguments against a tool's JSON Schema. Plain JSON Schema (what user
 * plugins pass) and TypeBox schemas validate alike, so this walks the schema itself rather
 * than requiring TypeBox's compiled kinds.
 * @module
 */
import type { JsonSchema, ToolArgs } from "./types.ts";

/** Valid arguments (defaults filled in, numeric strings coerced) or the problems found. */
export type ValidationResult = { ok: true; args: ToolArgs } | { ok: false; problems: string[] };

/**
 * Validates the top-level object: fills schema defaults, coerces `"5"` to `5` and `"true"` to
 * `true` where the schema wants those (models often quote them), and lists every problem.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const schema = {
 *   type: "object",
 *   properties: { n: { type: "integer", default: 1 } },
 *   required: [],
 * };
 * assert.deepEqual(validateArgs(schema, { n: "3" }), { ok: true, args: { n: 3 } });
 * assert.deepEqual(validateArgs(schema, {}), { ok: true, args: { n: 1 } });
 * ```
 */
export function validateArgs(schema: JsonSchema, args: ToolArgs): ValidationResult {
  const problems: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const out: ToolArgs = {};
  for (const name of required) {
    if (!(name in args)) problems.push(`missing required parameter "${name}"`);
  }
  for (const [name, propSchema] of Object.entries(properties)) {
    if (name in args) {
      out[name] = checkValue(propSchema, args[name], name, problems);
    } else if ("default" in propSchema) {
      out[name] = structuredClone(propSchema.default);
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, args: out };
}

function checkValue(schema: JsonSchema, value: unknown, at: string, problems: string[]): unknown {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options) {
    for (const option of options) {
      const trial: string[] = [];
      const coerced = checkValue(option, value, at, trial);
      if (trial.length === 0) return coerced;
    }
    problems.push(`"${at}" must be ${options.map(expected).join(" or ")}, got ${show(value)}`);
    return value;
  }
  if ("const" in schema && value !== schema.const) {
    problems.push(`"${at}" must be ${JSON.stringify(schema.const)}, got ${show(value)}`);
    return value;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    problems.push(
      `"${at}" must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}, got ${
        show(value)
      }`,
    );
    return value;
  }
  const type = schema.type as string | undefined;
  const coerced = coerce(type, value);
  if (type && !hasType(type, coerced)) {
    problems.push(`"${at}" must be ${expected(schema)}, got ${show(value)}`);
    return value;
  }
  if (typeof coerced === "number") checkBounds(schema, coerced, at, problems);
  if (typeof coerced === "string" && typeof schema.minLength === "number") {
    if (coerced.length < schema.minLength) {
      problems.push(`"${at}" must have at least ${schema.minLength} characters`);
    }
  }
  if (Array.isArray(coerced) && schema.items) {
    return coerced.map((item, i) =>
      checkValue(schema.items as JsonSchema, item, `${at}[${i}]`, problems)
    );
  }
  if (type === "object" && schema.properties && isObject(coerced)) {
    const nested = validateArgs(schema, coerced);
    if (!nested.ok) problems.push(...nested.problems.map((p) => `in "${at}": ${p}`));
    return nested.ok ? nested.args : coerced;
  }
  return coerced;
}

function checkBounds(schema: JsonSchema, n: number, at: string, problems: string[]): void {
  if (typeof schema.minimum === "number" && n < schema.minimum) {
    problems.push(`"${at}" must be >= ${schema.minimum}, got ${n}`);
  }
  if (typeof schema.maximum === "number" && n > schema.maximum) {
    problems.push(`"${at}" must be <= ${schema.maximum}, got ${n}`);
  }
}

function coerce(type: string | undefined, value: unknown): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if ((type === "integer" || type === "number") && trimmed !== "" && !isNaN(Number(trimmed))) {
    return Number(trimmed);
  }
  if (type === "boolean" && (trimmed === "true" || trimmed === "false")) return trimmed === "true";
  return value;
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

function expected(schema: JsonSchema): string {
  if ("const" in schema) return JSON.stringify(schema.const);
  const type = schema.type as string | undefined;
  const article = type === "integer" || type === "array" || type === "object" ? "an" : "a";
  return type ? `${article} ${type}` : "a valid value";
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? text.slice(0, 57) + "..." : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
