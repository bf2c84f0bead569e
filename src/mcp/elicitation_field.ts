/**
 * One field of an MCP elicitation form (a primitive schema: text, number, integer, yes/no, a
 * choice, or several choices): how it is put to the person, and their answer read and checked
 * against the schema. An empty answer takes the field's default (MCP's SEP-1034).
 * @module
 */

/** A field's schema as MCP allows it in `requestedSchema.properties` (flat, primitive). */
export interface FieldSchema {
  type: "string" | "number" | "integer" | "boolean" | "array";
  title?: string;
  description?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  format?: string;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  enumNames?: string[];
  oneOf?: { const: string; title: string }[];
  minItems?: number;
  maxItems?: number;
  items?: { enum?: string[]; anyOf?: { const: string; title: string }[] };
}

/** A value the form sends back. */
export type FieldValue = string | number | boolean | string[];

/** One value of a choice field and the title the person sees. */
interface Choice {
  value: string;
  title: string;
}

/** The person's answer read: a value, nothing (the field is left out), or what is wrong. */
export type FieldReading =
  | { ok: true; value: FieldValue | undefined }
  | { ok: false; problem: string };

/**
 * The choices of a choice field (`enum`, `oneOf`, or an array's items), else null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(fieldChoices({ type: "string", enum: ["a"], enumNames: ["A"] }), [
 *   { value: "a", title: "A" },
 * ]);
 * assert.equal(fieldChoices({ type: "string" }), null);
 * ```
 */
export function fieldChoices(schema: FieldSchema): Choice[] | null {
  const titled = schema.oneOf ?? schema.items?.anyOf;
  if (titled) return titled.map((c) => ({ value: c.const, title: c.title }));
  const values = schema.enum ?? schema.items?.enum;
  if (!values) return null;
  return values.map((value, i) => ({ value, title: schema.enumNames?.[i] ?? value }));
}

/**
 * What the field wants, in words: its kind and bounds, then its default.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   describeField({ type: "integer", minimum: 1, default: 30 }, true),
 *   "a whole number, at least 1; required; Enter keeps the default: 30",
 * );
 * assert.equal(
 *   describeField({ type: "string", oneOf: [{ const: "h1", title: "Superman" }], default: "h1" }, false),
 *   "one of the choices; optional; Enter keeps the default: Superman",
 * );
 * ```
 */
export function describeField(schema: FieldSchema, required: boolean): string {
  const parts = [kindOf(schema), required ? "required" : "optional: Enter leaves it out"];
  if (schema.default !== undefined) {
    parts[1] = required ? "required" : "optional";
    parts.push(`Enter keeps the default: ${showValue(schema.default as FieldValue, schema)}`);
  }
  return parts.join("; ");
}

/**
 * Reads the person's answer to a field: an empty answer takes the default (or leaves out an
 * optional field); anything else is checked against the schema.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(readField({ type: "integer" }, "42", true), { ok: true, value: 42 });
 * assert.deepEqual(readField({ type: "boolean", default: true }, "", true), { ok: true, value: true });
 * assert.deepEqual(readField({ type: "number", maximum: 5 }, "7", true), {
 *   ok: false,
 *   problem: "7 is more than 5",
 * });
 * ```
 */
export function readField(schema: FieldSchema, text: string, required: boolean): FieldReading {
  const answer = text.trim();
  if (answer === "") {
    if (schema.default !== undefined) return { ok: true, value: schema.default as FieldValue };
    return required
      ? { ok: false, problem: "an answer is required" }
      : { ok: true, value: undefined };
  }
  const choices = fieldChoices(schema);
  if (schema.type === "array") return readChoices(schema, choices ?? [], answer);
  if (choices) return readChoice(choices, answer);
  switch (schema.type) {
    case "boolean":
      return readYesNo(answer);
    case "number":
    case "integer":
      return readNumber(schema, answer);
    default:
      return readText(schema, answer);
  }
}

function kindOf(schema: FieldSchema): string {
  const choices = fieldChoices(schema);
  if (schema.type === "array") {
    const bounds = [
      schema.minItems === undefined ? "" : `at least ${schema.minItems}`,
      schema.maxItems === undefined ? "" : `at most ${schema.maxItems}`,
    ].filter(Boolean).join(", ");
    return `one or more of the choices, by number or name, separated by commas${
      bounds ? ` (${bounds})` : ""
    }`;
  }
  if (choices) return "one of the choices";
  switch (schema.type) {
    case "boolean":
      return "yes or no";
    case "number":
    case "integer":
      return [
        schema.type === "integer" ? "a whole number" : "a number",
        schema.minimum === undefined ? "" : `at least ${schema.minimum}`,
        schema.maximum === undefined ? "" : `at most ${schema.maximum}`,
      ].filter(Boolean).join(", ");
    default:
      return [
        schema.format ? FORMATS[schema.format]?.label ?? "text" : "text",
        schema.minLength === undefined ? "" : `at least ${schema.minLength} characters`,
        schema.maxLength === undefined ? "" : `at most ${schema.maxLength} characters`,
      ].filter(Boolean).join(", ");
  }
}

/** A value as the person reads it: a choice by its title, yes/no for a boolean. */
function showValue(value: FieldValue, schema: FieldSchema): string {
  const choices = fieldChoices(schema) ?? [];
  const title = (v: string) => choices.find((c) => c.value === v)?.title ?? v;
  if (Array.isArray(value)) return value.map(title).join(", ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return title(String(value));
}

function readChoice(choices: Choice[], answer: string): FieldReading {
  const found = findChoice(choices, answer);
  return found
    ? { ok: true, value: found.value }
    : { ok: false, problem: `"${answer}" is none of the choices` };
}

function readChoices(schema: FieldSchema, choices: Choice[], answer: string): FieldReading {
  const values: string[] = [];
  for (const part of answer.split(",").map((p) => p.trim()).filter(Boolean)) {
    const found = findChoice(choices, part);
    if (!found) return { ok: false, problem: `"${part}" is none of the choices` };
    if (!values.includes(found.value)) values.push(found.value);
  }
  if (schema.minItems !== undefined && values.length < schema.minItems) {
    return { ok: false, problem: `choose at least ${schema.minItems}` };
  }
  if (schema.maxItems !== undefined && values.length > schema.maxItems) {
    return { ok: false, problem: `choose at most ${schema.maxItems}` };
  }
  return { ok: true, value: values };
}

/** A choice by its number in the list (1-based), its value or its title, case ignored. */
function findChoice(choices: Choice[], answer: string): Choice | undefined {
  if (/^\d+$/.test(answer)) {
    const byNumber = choices[Number(answer) - 1];
    if (byNumber) return byNumber;
  }
  const lower = answer.toLowerCase();
  return choices.find((c) => c.value.toLowerCase() === lower) ??
    choices.find((c) => c.title.toLowerCase() === lower);
}

function readYesNo(answer: string): FieldReading {
  const lower = answer.toLowerCase();
  if (["y", "yes", "true", "1"].includes(lower)) return { ok: true, value: true };
  if (["n", "no", "false", "2"].includes(lower)) return { ok: true, value: false };
  return { ok: false, problem: `"${answer}" is neither yes nor no` };
}

function readNumber(schema: FieldSchema, answer: string): FieldReading {
  const value = Number(answer);
  if (!Number.isFinite(value)) return { ok: false, problem: `"${answer}" is not a number` };
  if (schema.type === "integer" && !Number.isInteger(value)) {
    return { ok: false, problem: `${answer} is not a whole number` };
  }
  if (schema.minimum !== undefined && value < schema.minimum) {
    return { ok: false, problem: `${answer} is less than ${schema.minimum}` };
  }
  if (schema.maximum !== undefined && value > schema.maximum) {
    return { ok: false, problem: `${answer} is more than ${schema.maximum}` };
  }
  return { ok: true, value };
}

/** The string formats MCP allows, in words and as a check. */
const FORMATS: Record<string, { label: string; test: (text: string) => boolean }> = {
  email: { label: "an email address", test: (t) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t) },
  uri: { label: "a URI", test: (t) => /^[a-z][a-z0-9+.-]*:/i.test(t) && URL.canParse(t) },
  date: {
    label: "a date (YYYY-MM-DD)",
    test: (t) => /^\d{4}-\d{2}-\d{2}$/.test(t) && isRealDate(t),
  },
  "date-time": {
    label: "a date and time (YYYY-MM-DDTHH:MM:SSZ)",
    test: (t) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(t) &&
      isRealDate(t.slice(0, 10)),
  },
};

function readText(schema: FieldSchema, answer: string): FieldReading {
  const length = [...answer].length;
  if (schema.minLength !== undefined && length < schema.minLength) {
    return { ok: false, problem: `it has ${length} characters, fewer than ${schema.minLength}` };
  }
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    return { ok: false, problem: `it has ${length} characters, more than ${schema.maxLength}` };
  }
  const format = schema.format ? FORMATS[schema.format] : undefined;
  if (format && !format.test(answer)) {
    return { ok: false, problem: `"${answer}" is not ${format.label}` };
  }
  return { ok: true, value: answer };
}

/** Whether `YYYY-MM-DD` names a day that exists (not 2026-02-30). */
function isRealDate(text: string): boolean {
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}
