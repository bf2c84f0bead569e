/**
 * The builder makes what TypeBox's own `Type` makes, symbols and key order included, and
 * TypeBox's validator reads the result as its own.
 */
import assert from "node:assert/strict";
import { Type as TypeBox } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { quickCheck, Type } from "./type.ts";

/** Each case built both ways; `as never` because the two builders' argument types differ. */
const CASES: [string, (T: typeof Type) => unknown][] = [
  ["String", (T) => T.String()],
  ["String with options", (T) => T.String({ description: "a path", minLength: 1 })],
  ["Integer", (T) => T.Integer({ minimum: 1, maximum: 10, description: "n" })],
  ["Number", (T) => T.Number({ minimum: 0 })],
  ["Boolean", (T) => T.Boolean({ default: false })],
  ["Null", (T) => T.Null()],
  ["Literal string", (T) => T.Literal("allow")],
  ["Literal number", (T) => T.Literal(3, { description: "three" })],
  ["Array", (T) => T.Array(T.String(), { maxItems: 4 })],
  ["Union", (T) => T.Union([T.Literal("a"), T.Literal("b")], { description: "which" })],
  ["Optional", (T) => T.Optional(T.String({ description: "d" }))],
  [
    "Object, required and optional",
    (T) =>
      T.Object({ path: T.String(), limit: T.Optional(T.Integer()) }, {
        additionalProperties: false,
      }),
  ],
  ["Object, all optional", (T) => T.Object({ a: T.Optional(T.Boolean()) })],
  ["Record", (T) => T.Record(T.String(), T.Union([T.Literal("x"), T.Array(T.String())]))],
  ["Record with a key pattern", (T) => T.Record(T.String({ pattern: "^[a-z]+$" }), T.Number())],
  ["Unsafe", (T) => T.Unsafe<string>({ type: "string", enum: ["log", "show"] })],
  [
    "nested",
    (T) =>
      T.Object({
        modes: T.Optional(T.Record(T.String(), T.Object({ tools: T.Array(T.String()) }))),
        temperature: T.Union([T.Number({ minimum: 0, maximum: 2 }), T.Null()]),
      }),
  ],
];

Deno.test("schema builder: each case equals TypeBox's, symbols and key order included", () => {
  for (const [name, build] of CASES) {
    const ours = build(Type);
    const theirs = build(TypeBox as never);
    assert.deepStrictEqual(ours, theirs, name);
    assert.equal(JSON.stringify(ours), JSON.stringify(theirs), `${name}: key order`);
    assert.deepEqual(
      Object.getOwnPropertySymbols(ours).map(String),
      Object.getOwnPropertySymbols(theirs).map(String),
      `${name}: symbols`,
    );
  }
});

Deno.test("schema builder: TypeBox's validator checks our schemas, errors and all", () => {
  const schema = Type.Object({
    path: Type.String(),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    mode: Type.Union([Type.Literal("a"), Type.Literal("b")]),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
  }, { additionalProperties: false });
  assert.equal(Value.Check(schema, { path: "x", mode: "a", env: { K: "v" } }), true);
  assert.equal(Value.Check(schema, { path: "x", mode: "c" }), false);
  assert.equal(Value.Check(schema, { path: "x", mode: "a", limit: 0 }), false);
  assert.equal(Value.Check(schema, { path: "x", mode: "a", env: { K: 1 } }), false);
  assert.equal(Value.Errors(schema, { mode: "a" }).First()?.path, "/path");
});

Deno.test("schema builder: a union of fewer than two members is refused", () => {
  assert.throws(() => Type.Union([Type.String()]), /two or more/);
});

Deno.test("quickCheck never passes a value TypeBox's validator fails, for every config key", async () => {
  const { CONFIG_KEYS } = await import("../config/defaults.ts");
  const samples: unknown[] = [
    "text",
    "",
    "allow",
    "deny",
    "ask",
    "auto",
    "bwrap",
    0,
    1,
    -1,
    2,
    2.5,
    3,
    100,
    1e9,
    NaN,
    Infinity,
    true,
    false,
    null,
    [],
    ["a"],
    {},
    { a: 1 },
  ];
  let quick = 0;
  for (const [name, spec] of Object.entries(CONFIG_KEYS)) {
    for (const value of [...samples, spec.default]) {
      if (!quickCheck(spec.schema, value)) continue;
      quick++;
      assert.ok(Value.Check(spec.schema, value), `${name}: ${JSON.stringify(value)}`);
    }
  }
  assert.ok(quick > 50, `quickCheck decided only ${quick} cases itself`);
  // Constraints it does not read are left to the validator, never waved through.
  assert.equal(quickCheck(Type.String({ pattern: "^a" }), "b"), undefined);
  assert.equal(quickCheck(Type.String({ const: "a" } as never), "b"), undefined);
});
