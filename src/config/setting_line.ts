/**
 * Where in a YAML config file a dotted key is set, as `file:line`, so `replio policy explain` can
 * point at the line that decided.
 * @module
 */

/**
 * The 1-based line of `key` (dotted, e.g. `tool_permission.bash`) in `file`, or null when the file
 * does not set it (or cannot be read).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const file = await Deno.makeTempFile({ suffix: ".yaml" });
 * await Deno.writeTextFile(file, "model: m\ntool_permission:\n  bash: allow\n");
 * assert.equal(await settingLine(file, "tool_permission.bash"), 3);
 * assert.equal(await settingLine(file, "tools.deny"), null);
 * await Deno.remove(file);
 * ```
 */
export async function settingLine(file: string, key: string): Promise<number | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch {
    return null;
  }
  const { LineCounter, parseDocument, isMap, isScalar } = await import("yaml");
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines });
  // The key node of `parts` under `node`: nested maps, flat dotted keys, or a mix of both.
  const find = (node: unknown, parts: string[]): { range?: number[] | null } | null => {
    if (!isMap(node)) return null;
    for (let n = parts.length; n >= 1; n--) {
      const name = parts.slice(0, n).join(".");
      const pair = node.items.find((item) => isScalar(item.key) && item.key.value === name);
      if (!pair) continue;
      if (n === parts.length) return pair.key as { range?: number[] | null };
      const found = find(pair.value, parts.slice(n));
      if (found) return found;
    }
    return null;
  };
  const start = find(document.contents, key.split("."))?.range?.[0];
  return start === undefined ? null : lines.linePos(start).line;
}
