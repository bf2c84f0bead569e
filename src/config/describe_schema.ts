/**
 * Says in words what a schema expects, for configuration errors and docs/config.md.
 * @module
 */
import type { TSchema } from "../schema/type.ts";

/**
 * Describes a JSON Schema in a short phrase.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(describeSchema({ type: "integer", minimum: 0 }), "an integer >= 0");
 * assert.equal(
 *   describeSchema({ anyOf: [{ const: "allow" }, { const: "ask" }] }),
 *   'one of "allow", "ask"',
 * );
 * ```
 */
export function describeSchema(schema: TSchema | Record<string, unknown>): string {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf)) {
    const options = s.anyOf as Record<string, unknown>[];
    if (options.every((o) => "const" in o)) {
      return `one of ${options.map((o) => JSON.stringify(o.const)).join(", ")}`;
    }
    return options.map((o) => describeSchema(o)).join(" or ");
  }
  if ("const" in s) return JSON.stringify(s.const);
  const bounds = [
    typeof s.minimum === "number" ? `>= ${s.minimum}` : "",
    typeof s.exclusiveMinimum === "number" ? `> ${s.exclusiveMinimum}` : "",
    typeof s.maximum === "number" ? `<= ${s.maximum}` : "",
  ].filter(Boolean).join(" and ");
  switch (s.type) {
    case "integer":
      return `an integer${bounds ? " " + bounds : ""}`;
    case "number":
      return `a number${bounds ? " " + bounds : ""}`;
    case "string":
      return "a string";
    case "boolean":
      return "true or false";
    case "null":
      return "null";
    case "array":
      return `a list of ${plural(describeSchema(s.items as TSchema))}`;
    case "object":
      return s.patternProperties ? "a mapping of names to settings" : "a mapping";
    default:
      return "a valid value";
  }
}

function plural(phrase: string): string {
  return phrase.replace(/^an? (\w+)/, "$1s");
}
