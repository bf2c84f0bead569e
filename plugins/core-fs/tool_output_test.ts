import assert from "node:assert/strict";
import { join } from "node:path";
import { Type } from "../../src/plugins/api.ts";
import { OUTPUT_STORE_SERVICE, OutputStore, ToolRegistry } from "../../src/tools/mod.ts";
import { createRegistry } from "../../src/plugins/mod.ts";
import { runTool, tempWorktree } from "../../tests/support/worktree.ts";

/** A store in the worktree's session folder with the given budget. */
function storeIn(root: string, maxBytes = 256_000_000): OutputStore {
  return new OutputStore({ dir: join(root, ".replio", "sessions", "s1", "outputs"), maxBytes });
}

const NOTE =
  /^… ([\d,]+) lines \((?:of ([\d,]+) lines, )?[\d.]+ [KMG]?B(?: in all)?\) omitted, lines ([\d,]+)–([\d,]+): read them with tool_output\(id="(o\d+)", offset=([\d,]+)\) or grep them with tool_output\(id="o\d+", pattern="FAIL"\)$/;

const num = (text: string) => Number(text.replaceAll(",", ""));

Deno.test("a 50 MB command output is kept whole, and the model's view is bounded with exact counts", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  const services = { [OUTPUT_STORE_SERVICE]: store };
  const lines = 1_700_000;
  const command = `awk 'BEGIN{for(i=1;i<=${lines};i++) print "line " i " of the big output"}'`;
  const out = await runTool(wt, "run_command", { command }, { services });
  assert.ok(out.length <= 100_000, `view is ${out.length} chars`);
  const shown = out.split("\n");
  assert.equal(shown[0], "exit 0");
  assert.equal(shown[1], "line 1 of the big output");
  assert.equal(shown.at(-1), `line ${lines} of the big output`);
  const note = shown.find((l) => l.startsWith("… "))!;
  const found = note.match(NOTE);
  assert.ok(found, note);
  const [, omitted, total, from, to, id, offset] = found;
  assert.equal(num(total!), lines);
  assert.equal(num(from!), 101);
  assert.equal(num(offset!), 101);
  assert.equal(num(to!), lines - 100);
  assert.equal(num(omitted!), lines - 200);
  // The file holds every byte the command printed.
  let bytes = 0;
  for (let i = 1; i <= lines; i++) bytes += `line ${i} of the big output\n`.length;
  assert.equal((await Deno.stat(join(store.dir, `${id}.txt`))).size, bytes);
  assert.ok(bytes > 50_000_000);

  const page = await runTool(wt, "tool_output", { id, offset: 1_000_000, limit: 3 }, {
    services,
  });
  assert.equal(
    page,
    `${id}: lines 1,000,000–1,000,002 of 1,700,000\n` +
      "line 1000000 of the big output\nline 1000001 of the big output\n" +
      "line 1000002 of the big output\n" +
      `(more: tool_output(id="${id}", offset=1000003))`,
  );
  const grep = await runTool(wt, "tool_output", { id, pattern: "^line 123456[78] " }, {
    services,
  });
  assert.equal(
    grep,
    `${id}: 2 of 1,700,000 lines match "^line 123456[78] "\n` +
      "1234567: line 1234567 of the big output\n1234568: line 1234568 of the big output",
  );
});

Deno.test("a command whose output fits keeps nothing on disk", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  const out = await runTool(wt, "run_command", { command: "seq 1 5" }, {
    services: { [OUTPUT_STORE_SERVICE]: store },
  });
  assert.equal(out, "exit 0\n1\n2\n3\n4\n5");
  assert.deepEqual(store.list(), []);
  // CRLF line ends and a progress line rewritten by CR are shown whole too: nothing kept.
  const crlf = await runTool(
    wt,
    "run_command",
    { command: "printf 'a\\r\\nb 10%%\\rb 100%%\\n'" },
    {
      services: { [OUTPUT_STORE_SERVICE]: store },
    },
  );
  assert.equal(crlf, "exit 0\na\nb 100%");
  assert.deepEqual(store.list(), []);
});

Deno.test("a command whose long lines are cut keeps its output and says how to read it", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  const services = { [OUTPUT_STORE_SERVICE]: store };
  const out = await runTool(wt, "run_command", {
    command: "printf 'short\\n'; printf 'x%.0s' $(seq 1 5000); printf '\\n'",
  }, { services });
  const lines = out.split("\n");
  assert.equal(lines[1], "short");
  assert.match(lines[2]!, /^x{400} \.\.\. \(4600 chars omitted\)$/);
  assert.equal(
    lines[3],
    '(long lines were cut: the whole output is kept, read it with tool_output(id="o1", offset=1))',
  );
  const page = await runTool(wt, "tool_output", { id: "o1" }, { services });
  assert.equal(
    page,
    `o1: lines 1–2 of 2\nshort\n${"x".repeat(2000)} … (3,000 more chars: ` +
      `tool_output(id="o1", offset=2, char_offset=2000))\n(end of output o1)`,
  );
  const rest = await runTool(wt, "tool_output", { id: "o1", offset: 2, char_offset: 2000 }, {
    services,
  });
  assert.equal(
    rest,
    `o1: line 2, chars 2,000–5,000 of 5,000\n${"x".repeat(3000)}\n(end of line 2)`,
  );
});

/** A registry with the bundled tools and `long_text`, which returns `lines` numbered lines. */
function registryWithLongText(lines: number): ToolRegistry {
  const registry = createRegistry();
  registry.register(
    {
      name: "long_text",
      description: "test",
      parameters: Type.Object({}),
      category: "read",
      permission: "read",
    },
    () =>
      Array.from({ length: lines }, (_, i) => `row ${i + 1}${i % 1000 === 7 ? " FAIL" : ""}`).join(
        "\n",
      ),
  );
  return registry;
}

Deno.test("a result cut to tool_max_result_chars is kept, with head, tail and the exact lines left out", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  const services = { [OUTPUT_STORE_SERVICE]: store };
  const registry = registryWithLongText(10_000);
  const config = { tool_max_result_chars: 5000 };
  const out = await runTool(wt, "long_text", {}, { services, registry, config });
  assert.ok(out.length <= 5000, `view is ${out.length} chars`);
  const shown = out.split("\n");
  assert.equal(shown[0], "row 1");
  assert.equal(shown.at(-1), "row 10000");
  const noteAt = shown.findIndex((l) => l.startsWith("… "));
  const found = shown[noteAt]!.match(NOTE);
  assert.ok(found, shown[noteAt]);
  const [, omitted, , from, to, id] = found;
  // Head and tail plus the omitted range cover every line exactly once.
  assert.equal(num(from!), noteAt + 1);
  assert.equal(shown[noteAt - 1], `row ${noteAt}`);
  assert.equal(shown[noteAt + 1], `row ${num(to!) + 1}`);
  assert.equal(num(omitted!), num(to!) - num(from!) + 1);
  assert.equal(noteAt + num(omitted!) + (shown.length - noteAt - 1), 10_000);

  const grep = await runTool(wt, "tool_output", { id, pattern: "FAIL" }, { services, config });
  assert.equal(grep.split("\n")[0], `${id}: 10 of 10,000 lines match "FAIL"`);
  assert.equal(grep.split("\n")[1], "8: row 8 FAIL");
  const end = await runTool(wt, "tool_output", { id, offset: 9999 }, { services, config });
  assert.equal(
    end,
    `${id}: lines 9,999–10,000 of 10,000\nrow 9999\nrow 10000\n(end of output ${id})`,
  );
});

Deno.test("tool_output pages within the result cap and says where to go on", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  const kept = store.save(
    Array.from({ length: 500 }, (_, i) => `${i + 1} ${"x".repeat(90)}`).join("\n"),
  );
  const out = await runTool(wt, "tool_output", { id: kept.id, limit: 500 }, {
    services: { [OUTPUT_STORE_SERVICE]: store },
    config: { tool_max_result_chars: 2000 },
  });
  const lines = out.split("\n");
  assert.ok(out.length <= 2000);
  const last = lines.length - 2;
  assert.equal(lines[0], `${kept.id}: lines 1–${last} of 500`);
  assert.equal(lines.at(-1), `(more: tool_output(id="${kept.id}", offset=${last + 1}))`);
});

Deno.test("tool_output names the kept outputs when the id is unknown", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path);
  store.save("a\nb");
  const out = await runTool(wt, "tool_output", { id: "o9" }, {
    services: { [OUTPUT_STORE_SERVICE]: store },
  });
  assert.match(out, /^Error: No output "o9" in this session: the kept ones are o1 \(/);
  const none = await runTool(wt, "tool_output", { id: "o1" });
  assert.match(none, /^Error: Cannot read output "o1": outputs are kept only in a session/);
});

Deno.test("the disk budget removes the oldest outputs and keeps the first part of one too large", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path, 1000);
  const a = store.save("a".repeat(400));
  const b = store.save("b".repeat(400));
  const c = store.save("c".repeat(400));
  assert.deepEqual([a.id, b.id, c.id], ["o1", "o2", "o3"]);
  assert.deepEqual(store.list(), ["o2", "o3"]);
  const big = store.save("d".repeat(5000));
  assert.deepEqual(big, { id: "o4", bytes: 1000, lines: 1, droppedBytes: 4000 });
  assert.deepEqual(store.list(), ["o4"]);
  assert.equal((await Deno.stat(join(store.dir, "o4.txt"))).size, 1000);
  // Outputs hold command output and file contents: private, like the session files.
  assert.equal((await Deno.stat(join(store.dir, "o4.txt"))).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(store.dir)).mode! & 0o777, 0o700);
  // A new store over the same folder goes on numbering after what is there, and two stores
  // of one session (the agent's and /tool's) never take the same id.
  const other = storeIn(wt.path, 1000);
  assert.equal(other.save("e").id, "o5");
  assert.equal(store.save("f").id, "o6");
  assert.equal(other.save("g").id, "o7");
});

Deno.test("with tool_output.max_mb 0 nothing is kept and results are cut as before", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path, 0);
  const services = { [OUTPUT_STORE_SERVICE]: store };
  const cut = await runTool(wt, "long_text", {}, {
    services,
    registry: registryWithLongText(10_000),
    config: { tool_max_result_chars: 5000 },
  });
  assert.ok(cut.endsWith("\n... (truncated)"));
  const ran = await runTool(wt, "run_command", { command: "seq 1 500" }, { services });
  assert.match(ran, /\n\.\.\. \(300 lines omitted\) \.\.\.\n/);
  assert.deepEqual(store.list(), []);
});

Deno.test("a cut result says when the disk budget kept only its start", async () => {
  await using wt = await tempWorktree({});
  const store = storeIn(wt.path, 2000);
  const out = await runTool(wt, "long_text", {}, {
    services: { [OUTPUT_STORE_SERVICE]: store },
    registry: registryWithLongText(10_000),
    config: { tool_max_result_chars: 5000 },
  });
  const note = out.split("\n").find((l) => l.startsWith("… "))!;
  assert.match(note, / \(only the first 2\.0 KB were kept: tool_output\.max_mb\)$/);
});
