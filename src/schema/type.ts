/**
 * The schema builder for tool parameters and config keys: the part of TypeBox's `Type` replio
 * uses, building the very same objects (JSON Schema plus TypeBox's `Kind` and `Optional`
 * symbols, which are global `Symbol.for` keys), typed with TypeBox's own types so `Static`
 * infers as before. TypeBox's validator (`@sinclair/typebox/value`, loaded where a value is
 * checked) reads these schemas as its own.
 *
 * Why not TypeBox's builder itself: importing it costs about 20 ms at every start, before the
 * first model request, and replio calls a dozen of its functions (docs/decisions.md).
 * `src/schema/type_test.ts` checks each builder against TypeBox's, symbols included.
 * @module
 */
import type {
  ArrayOptions,
  IntegerOptions,
  NumberOptions,
  ObjectOptions,
  SchemaOptions,
  StringOptions,
  TArray,
  TBoolean,
  TInteger,
  TLiteral,
  TLiteralValue,
  TNull,
  TNumber,
  TObject,
  TOptional,
  TProperties,
  TRecord,
  TSchema,
  TString,
  TUnion,
  TUnsafe,
  UnsafeOptions,
} from "@sinclair/typebox";

export type { Static, TSchema } from "@sinclair/typebox";

const Kind = Symbol.for("TypeBox.Kind");
const OptionalKind = Symbol.for("TypeBox.Optional");
/** TypeBox's pattern for a record keyed by any string. */
const ANY_STRING_KEY = "^(.*)$";

/** Options first, then the schema's own keys: TypeBox's key order, so JSON output matches. */
function create<T>(schema: Record<string | symbol, unknown>, options?: object): T {
  return (options === undefined ? schema : { ...options, ...schema }) as T;
}

function isOptional(schema: TSchema): boolean {
  return (schema as unknown as Record<symbol, unknown>)[OptionalKind] === "Optional";
}

/** TypeBox's `Type`, as far as replio uses it. */
export const Type = {
  String: (options?: StringOptions): TString =>
    create({ [Kind]: "String", type: "string" }, options),
  Integer: (options?: IntegerOptions): TInteger =>
    create({ [Kind]: "Integer", type: "integer" }, options),
  Number: (options?: NumberOptions): TNumber =>
    create({ [Kind]: "Number", type: "number" }, options),
  Boolean: (options?: SchemaOptions): TBoolean =>
    create({ [Kind]: "Boolean", type: "boolean" }, options),
  Null: (options?: SchemaOptions): TNull => create({ [Kind]: "Null", type: "null" }, options),
  Literal: <T extends TLiteralValue>(value: T, options?: SchemaOptions): TLiteral<T> =>
    create({ [Kind]: "Literal", const: value, type: typeof value }, options),
  Array: <T extends TSchema>(items: T, options?: ArrayOptions): TArray<T> =>
    create({ [Kind]: "Array", type: "array", items }, options),
  /** Two or more members: TypeBox folds fewer into Never or the member, replio never needs it. */
  Union: <T extends TSchema[]>(types: [...T], options?: SchemaOptions): TUnion<T> => {
    if (types.length < 2) throw new Error("Type.Union needs two or more members");
    return create({ [Kind]: "Union", anyOf: types }, options);
  },
  Optional: <T extends TSchema>(schema: T): TOptional<T> =>
    ({ ...schema, [OptionalKind]: "Optional" }) as TOptional<T>,
  Object: <T extends TProperties>(properties: T, options?: ObjectOptions): TObject<T> => {
    const required = Object.keys(properties).filter((key) => !isOptional(properties[key]!));
    return create(
      required.length > 0
        ? { [Kind]: "Object", type: "object", required, properties }
        : { [Kind]: "Object", type: "object", properties },
      options,
    );
  },
  /** Keyed by strings (`Type.String()`, with or without a pattern): the records replio declares. */
  Record: <V extends TSchema>(key: TString, value: V, options?: ObjectOptions): TRecord<
    TString,
    V
  > =>
    create(
      {
        [Kind]: "Record",
        type: "object",
        patternProperties: { [key.pattern ?? ANY_STRING_KEY]: value },
      },
      options,
    ),
  Unsafe: <T>(options: UnsafeOptions = {}): TUnsafe<T> =>
    create({ [Kind]: (options as Record<symbol, unknown>)[Kind] ?? "Unsafe" }, options),
};

/**
 * The keys {@link quickCheck} reads a schema by: the describing ones (which never make a value
 * fail) and numeric bounds. A schema with any other key (`pattern`, `const`, `enum` …) goes to
 * TypeBox's validator.
 */
const QUICK_KEYS = new Set([
  "description",
  "default",
  "title",
  "examples",
  "type",
  "minimum",
  "maximum",
]);

/**
 * Whether `value` fits `schema`, for the simple schemas most settings have (string, number,
 * integer with bounds, boolean, literal, a union of these), without loading TypeBox's
 * validator: true when it surely fits, undefined when only the validator can tell (a failure,
 * or a schema this does not read), so error messages still come from one place.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(quickCheck(Type.Integer({ minimum: 1 }), 4), true);
 * assert.equal(quickCheck(Type.Integer({ minimum: 1 }), 0), undefined);
 * assert.equal(quickCheck(Type.Array(Type.String()), []), undefined);
 * ```
 */
export function quickCheck(schema: TSchema, value: unknown): true | undefined {
  const s = schema as unknown as Record<string | symbol, unknown>;
  const kind = s[Kind];
  if (kind === "Union") {
    return (s.anyOf as TSchema[]).some((member) => quickCheck(member, value)) || undefined;
  }
  if (kind === "Literal") return value === s.const || undefined;
  if (Object.keys(s).some((key) => !QUICK_KEYS.has(key))) return undefined;
  const inBounds = typeof value === "number" &&
    (s.minimum === undefined || value >= (s.minimum as number)) &&
    (s.maximum === undefined || value <= (s.maximum as number));
  if (kind === "Integer") return (inBounds && Number.isInteger(value)) || undefined;
  if (kind === "Number") return (inBounds && Number.isFinite(value)) || undefined;
  if (kind === "String") return typeof value === "string" || undefined;
  if (kind === "Boolean") return typeof value === "boolean" || undefined;
  return undefined;
}
