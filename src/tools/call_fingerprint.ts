/**
 * What binds a person's answer to one call: the tool's name and its canonical arguments (the
 * cleaned arguments the policy judged, keys sorted), hashed. A parked call records it, its
 * answer copies it, and the answer is used only for a call with the same fingerprint: the model
 * chooses call ids, so an id alone proves nothing about what a person saw.
 * @module
 */
import type { ToolArgs } from "./types.ts";

/**
 * JSON with object keys sorted at every depth, so equal arguments give equal text whatever
 * order the model wrote them in.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }),
 *   '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
 * ```
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner !== "object" || inner === null || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) {
      sorted[key] = (inner as Record<string, unknown>)[key];
    }
    return sorted;
  });
}

/**
 * The SHA-256 (hex) of a call's tool name and canonical arguments.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const a = await callFingerprint("run_command", { command: "ls", timeout: 5 });
 * assert.equal(a, await callFingerprint("run_command", { timeout: 5, command: "ls" }));
 * assert.notEqual(a, await callFingerprint("run_command", { command: "ls -a", timeout: 5 }));
 * assert.notEqual(a, await callFingerprint("file_read", { command: "ls", timeout: 5 }));
 * ```
 */
export async function callFingerprint(tool: string, args: ToolArgs): Promise<string> {
  const text = canonicalJson({ tool, arguments: args });
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
