/**
 * What a configuration key is (its schema, default and one-line doc) and the schemas many keys
 * share, for the tables that define keys (defaults.ts and the files it takes keys from).
 * @module
 */
import { type Static, type TSchema, Type } from "../schema/type.ts";

/** One configuration key. */
export interface KeySpec<S extends TSchema = TSchema> {
  schema: S;
  default: Static<S>;
  doc: string;
  /** Object-valued keys whose entries merge per name across files (modes, agents). */
  mergesPerEntry?: boolean;
  /**
   * What is wrong with a value that fits the schema, for rules a schema says badly; or null.
   * A method, so a key's spec still reads as a spec of any schema.
   */
  check?(value: Static<S>): string | null;
}

/**
 * One key's spec from its schema, default and doc line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Type } from "../schema/type.ts";
 * assert.equal(key(Type.Boolean(), false, "A switch").default, false);
 * ```
 */
export function key<S extends TSchema>(
  schema: S,
  value: Static<S>,
  doc: string,
  options: Pick<KeySpec<S>, "mergesPerEntry" | "check"> = {},
): KeySpec<S> {
  return { schema, default: value, doc, ...options };
}

/** A policy action, as every `tool_permission` key takes it. */
export const ACTION = Type.Union([
  Type.Literal("allow"),
  Type.Literal("ask"),
  Type.Literal("deny"),
]);
/** A list of strings. */
export const STRINGS = Type.Array(Type.String());
