/**
 * The schemas of entries in object-valued keys: a mode, an agent type, a user plugin.
 * @module
 */
import { Type } from "../schema/type.ts";
import { ACTION, STRINGS } from "./key_spec.ts";

/** A mode: a partial policy merged over the base (spec/tools.md §Tool policy). */
export const MODE_SCHEMA = Type.Object({
  description: Type.Optional(Type.String()),
  instructions: Type.Optional(Type.String()),
  /** Only tools proven read-only run in the mode (docs/tools.md, "Read-only modes"). */
  read_only: Type.Optional(Type.Boolean()),
  tool_permission: Type.Optional(Type.Record(Type.String(), Type.Union([ACTION, STRINGS]))),
  tools: Type.Optional(Type.Object({
    allow: Type.Optional(STRINGS),
    deny: Type.Optional(STRINGS),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/** An agent type declared in config (`.replio/agents/<name>.md` files declare the same). */
export const AGENT_SCHEMA = Type.Object({
  description: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
  prompt: Type.Optional(Type.String()),
  max_rounds: Type.Optional(Type.Integer({ minimum: 1 })),
  tool_permission: Type.Optional(Type.Record(Type.String(), Type.Union([ACTION, STRINGS]))),
  tools: Type.Optional(Type.Object({
    allow: Type.Optional(STRINGS),
    deny: Type.Optional(STRINGS),
  }, { additionalProperties: false })),
}, { additionalProperties: false });

/**
 * A user plugin: a path (relative to the worktree), or a URL plugin pinned by `replio plugin add`
 * with its integrity and the permissions the user granted its Worker (docs/plugins.md).
 */
export const PLUGIN_ENTRY_SCHEMA = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({
    url: Type.String({ pattern: "^https?://" }),
    integrity: Type.String({ pattern: "^sha256-[A-Za-z0-9+/]+={0,2}$" }),
    permissions: Type.Optional(Type.Object({
      read: Type.Optional(STRINGS),
      write: Type.Optional(STRINGS),
      net: Type.Optional(STRINGS),
      env: Type.Optional(STRINGS),
      run: Type.Optional(STRINGS),
    }, { additionalProperties: false })),
  }, { additionalProperties: false }),
]);
