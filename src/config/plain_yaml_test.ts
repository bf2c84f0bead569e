import assert from "node:assert/strict";
import { parse } from "yaml";
import { parsePlainYaml, parseYaml } from "./plain_yaml.ts";
import { seededRandom } from "../../tests/support/seeded_random.ts";

/** The yaml package's reading, or "error". */
function reference(text: string): unknown {
  try {
    return parse(text, { logLevel: "silent" });
  } catch {
    return "error";
  }
}

/** Every document the subset reads must read the same with the yaml package. */
function agrees(text: string): boolean {
  const mine = parsePlainYaml(text);
  if (mine === undefined) return false;
  assert.deepEqual(mine, reference(text), `the two readers differ on:\n${text}`);
  return true;
}

// What config values mostly are.
const COMMON = [
  "a",
  "npm test",
  "gpt-4o",
  "off",
  "auto",
  "true",
  "false",
  "0",
  "30",
  "1.5",
  "http://127.0.0.1:8080/v1",
  "~/.config/replio",
  "src/**/*.ts",
  "GH_TOKEN",
  "x y  z",
];
// Plain scalars that look like other types in one YAML version or another, and indicators.
const EDGE = [
  "a",
  "npm test",
  "make -j4 test",
  "yes",
  "no",
  "on",
  "off",
  "y",
  "true",
  "True",
  "FALSE",
  "null",
  "Null",
  "~",
  "0",
  "7",
  "-3",
  "+12",
  "007",
  "1.5",
  ".5",
  "1.",
  "-2.25",
  "1e3",
  "1E-2",
  "0x1F",
  "0o17",
  ".inf",
  "-.Inf",
  ".nan",
  "1_000",
  "2024-01-01",
  "1.2.3",
  "2024-rc",
  "v1",
  "http://127.0.0.1:8080/v1",
  "a#b",
  "a # c",
  "-x",
  "- x",
  "a: b",
  "a:b",
  "key:",
  ":a",
  "?a",
  "&anchor",
  "*alias",
  "!!str x",
  "|",
  ">-",
  "@x",
  "`x`",
  "%x",
  "[a",
  "{a",
  "a, b",
  "gpt-4o",
  "~/.config/replio",
  "*.ts",
  "src/**/*.ts",
  "C:\\tmp",
  "99999999999999999999",
  "-0",
  "0.0",
  "x y  z",
  "ünïcödé",
  "$HOME",
  "a'b",
  'a"b',
  "\\",
  "#x",
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

/** Mostly common values, one in five an edge case. */
function scalar(random: () => number): string {
  return pick(random, random() < 0.2 ? EDGE : COMMON);
}

function quote(random: () => number, text: string): string {
  const style = random();
  if (style < 0.5) return text;
  if (style < 0.75) return `'${text.replaceAll("'", "''")}'`;
  return JSON.stringify(text);
}

// deno-fmt-ignore
const KEYS = ["model", "base_url", "tools", "deny", "keep", "sandbox", "mode", "network", "a",
  "b_c", "x.y", "dev", "test_cmd", "k-1"];
const ODD_KEYS = ["1a", "true", "null", "key with space", "__proto__", "a:b"];

/** A random document close to what people write, with the subset's edges mixed in. */
function document(random: () => number, depth = 0, indent = ""): string {
  const lines: string[] = [];
  const step = pick(random, ["  ", "    ", " "]);
  const count = 1 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) {
    if (random() < 0.15) lines.push(`${indent}# a comment`);
    if (random() < 0.1) lines.push("");
    const key = pick(random, random() < 0.05 ? ODD_KEYS : KEYS);
    const kind = random();
    const comment = random() < 0.15 ? " # note" : "";
    if (kind < 0.45 || depth >= 3) {
      lines.push(`${indent}${key}: ${quote(random, scalar(random))}${comment}`);
    } else if (kind < 0.6) {
      const items = Array.from(
        { length: Math.floor(random() * 4) },
        () => quote(random, scalar(random)),
      );
      lines.push(`${indent}${key}: [${items.join(pick(random, [", ", ",", " , "]))}]${comment}`);
    } else if (kind < 0.75) {
      lines.push(`${indent}${key}:${comment}`);
      const itemIndent = random() < 0.3 ? indent : indent + step;
      for (let j = 0; j < 1 + Math.floor(random() * 3); j++) {
        lines.push(`${itemIndent}- ${quote(random, scalar(random))}`);
      }
    } else if (kind < 0.8) {
      lines.push(`${indent}${key}: ${pick(random, ["{}", "[]", ""])}`);
    } else {
      lines.push(`${indent}${key}:`);
      lines.push(document(random, depth + 1, indent + step));
    }
  }
  return lines.join("\n");
}

/** A small random edit: what a slip of the keyboard does to a config file. */
function mutate(random: () => number, text: string): string {
  const at = Math.floor(random() * (text.length + 1));
  const insert = pick(random, [
    ":",
    " ",
    "#",
    "'",
    '"',
    "\t",
    "-",
    "[",
    "]",
    "{",
    "\n",
    "\n  ",
    ",",
  ]);
  return random() < 0.5
    ? text.slice(0, at) + insert + text.slice(at)
    : text.slice(0, at) + text.slice(at + 1);
}

Deno.test("plain YAML reads as the yaml package reads it, on 3,000 generated documents", () => {
  const random = seededRandom(20261202);
  let read = 0;
  for (let i = 0; i < 3_000; i++) if (agrees(document(random))) read++;
  // The subset must cover most of what people write, or the fast path would rarely apply.
  assert.ok(read > 1_200, `only ${read} of 3,000 documents were read without the yaml package`);
});

Deno.test("a document broken by a slip is never read differently, and never read when invalid", () => {
  const random = seededRandom(7);
  let read = 0;
  for (let i = 0; i < 3_000; i++) {
    const text = mutate(random, mutate(random, document(random)));
    if (reference(text) === "error") {
      assert.equal(parsePlainYaml(text), undefined, `read invalid YAML:\n${text}`);
    } else if (agrees(text)) {
      read++;
    }
  }
  assert.ok(read > 400, `only ${read} mutated documents were read`);
});

Deno.test("plain YAML: what it reads, and what it leaves to the yaml package", async () => {
  assert.deepEqual(
    parsePlainYaml(
      "# replio\nmodel: gpt-4o  # fast\nsandbox:\n  mode: off\n  network: false\n" +
        "shell_env:\n  keep: [GH_TOKEN, 'A B']\ntools:\n  deny:\n  - web_fetch\n",
    ),
    {
      model: "gpt-4o",
      sandbox: { mode: "off", network: false },
      shell_env: { keep: ["GH_TOKEN", "A B"] },
      tools: { deny: ["web_fetch"] },
    },
  );
  assert.equal(parsePlainYaml(""), null);
  // A config file is untrusted input: a __proto__ key is left to the yaml package, and the
  // result pollutes no prototype.
  assert.equal(parsePlainYaml("__proto__:\n  polluted: true\n"), undefined);
  await parseYaml("__proto__:\n  polluted: true\n");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(parsePlainYaml("# only a comment\n"), null);
  for (
    const beyond of [
      "tools: {deny: [bash]}",
      "a: |\n  text\n",
      "a: &x 1\nb: *x\n",
      "---\na: 1\n",
      "a: 1\na: 2\n",
      'a: "\\u00e9"',
      "a:\n  - b: 1\n",
      "a:\tb",
    ]
  ) {
    assert.equal(parsePlainYaml(beyond), undefined, beyond);
  }
});
