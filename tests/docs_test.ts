/**
 * docs/tools.md cannot drift from the registry: its generated reference must be current, and
 * its summary table must list exactly the registered tools with their category and permission.
 */
import assert from "node:assert/strict";
import { CORE_PLUGIN } from "../src/agents/mod.ts";
import { updateToolDocs } from "../src/cli/tool_docs.ts";
import { BUNDLED_PLUGINS } from "../src/plugins/mod.ts";
import { formatMarkdown } from "./support/format_markdown.ts";

const DOCS = new URL("../docs/tools.md", import.meta.url);

Deno.test("docs/tools.md holds the current generated tool reference", async () => {
  const committed = await Deno.readTextFile(DOCS);
  assert.ok(
    committed === await formatMarkdown(updateToolDocs(committed)),
    "docs/tools.md is stale: run `deno task docs` and commit the result",
  );
});

Deno.test("docs/tools.md's summary table lists every registered tool with its metadata", async () => {
  const committed = await Deno.readTextFile(DOCS);
  const rows = new Map<string, string[]>();
  for (const line of committed.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const name = cells[1]?.match(/^`(\w+)`$/)?.[1];
    if (name && cells.length >= 6 && !rows.has(name)) rows.set(name, cells.slice(2, 5));
  }
  const registered = [...BUNDLED_PLUGINS, CORE_PLUGIN].flatMap((p) =>
    p.tools.map(({ spec }) => [spec.name, p.name, spec.category, spec.permission])
  );
  for (const [name, plugin, category, permission] of registered) {
    assert.deepEqual(rows.get(name!), [plugin, category, permission], `row for ${name}`);
  }
  assert.equal(rows.size >= registered.length, true);
});
