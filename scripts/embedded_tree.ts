/**
 * Reads the tree of embedded files that `deno compile` prints (its "Embedded Files" section and
 * the `Files:` total), for the test and the bench that check what replio's binary carries.
 * @module
 */

/** One leaf of the tree: a file, or a folder embedded whole (printed as `dir/*`). */
export interface EmbeddedEntry {
  /** Relative to the compiled program's root, `/`-separated, without the `/*`. */
  path: string;
  isWholeDir: boolean;
  /** Its share of the total: content embedded twice counts once. */
  mb: number;
}

/** What deno compile listed. */
export interface EmbeddedTree {
  entries: EmbeddedEntry[];
  totalMb: number;
}

/** Where deno compile puts npm packages in the binary's file system. */
export const NPM_ROOT = ".deno_compile_node_modules/localhost";

const UNIT_MB: Readonly<Record<string, number>> = {
  B: 1 / 1024 ** 2,
  KB: 1 / 1024,
  MB: 1,
  GB: 1024,
};

/**
 * The tree in deno compile's output (colours off). Each level indents by two columns ("│ " or
 * two spaces) before "├──"/"└──" (a leaf) or "├─┬"/"└─┬" (an open folder).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const tree = readEmbeddedTree(
 *   "Embedded Files\n\nreplio\n├── main.ts (556B)\n└─┬ src (2MB)\n  └── agents/* (52KB - 50KB unique)\n\nFiles: 2.01MB\n",
 * );
 * assert.deepEqual(tree.entries.map((e) => [e.path, e.isWholeDir]), [["main.ts", false], ["src/agents", true]]);
 * assert.equal(tree.entries[1]?.mb, 50 / 1024);
 * assert.equal(tree.totalMb, 2.01);
 * ```
 */
export function readEmbeddedTree(output: string): EmbeddedTree {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => line.trim() === "Embedded Files");
  const total = /^Files: ([\d.]+)(B|KB|MB|GB)$/m.exec(output);
  if (start < 0 || !total) {
    throw new SyntaxError(
      `Cannot read deno compile's output: no "Embedded Files" tree or "Files:" total in it: ` +
        `run it with NO_COLOR=1 and pass its stderr`,
    );
  }
  const entries: EmbeddedEntry[] = [];
  const open: string[] = [];
  for (const line of lines.slice(start + 1)) {
    // "(2.28MB - 2.25MB unique)": the second figure leaves out content embedded twice.
    const found = /^((?:│ | {2})*)[├└]─([─┬]) (.+?) \((?:[^()]* - )?([\d.]+)(B|KB|MB|GB)[^()]*\)$/
      .exec(line);
    if (!found) continue;
    const depth = found[1]!.length / 2;
    const name = found[3]!;
    open.length = depth;
    if (found[2] === "┬") {
      open.push(name);
      continue;
    }
    const path = [...open, name].join("/");
    const isWholeDir = path.endsWith("/*");
    entries.push({
      path: isWholeDir ? path.slice(0, -2) : path,
      isWholeDir,
      mb: Number(found[4]) * UNIT_MB[found[5]!]!,
    });
  }
  return { entries, totalMb: Number(total[1]) * UNIT_MB[total[2]!]! };
}

/** Whether the tree holds `path`, itself or inside a folder embedded whole. */
export function isEmbedded(tree: EmbeddedTree, path: string): boolean {
  return tree.entries.some((entry) =>
    entry.path === path || (entry.isWholeDir && path.startsWith(`${entry.path}/`))
  );
}

/** The embedded npm packages by name (`zod`, `@sinclair/typebox`), in MB, largest first. */
export function npmPackageSizes(tree: EmbeddedTree): [string, number][] {
  const sizes = new Map<string, number>();
  for (const entry of tree.entries) {
    if (!entry.path.startsWith(`${NPM_ROOT}/`)) continue;
    const parts = entry.path.slice(NPM_ROOT.length + 1).split("/");
    const name = parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
    sizes.set(name, (sizes.get(name) ?? 0) + entry.mb);
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}
