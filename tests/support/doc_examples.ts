/**
 * Command examples in the docs, as tests read them: a fenced block holding `$ replio …` lines,
 * each followed by the output it shows. `...` on a line of its own stands for any number of
 * lines; a line ending in `...` or `…` matches any line that starts with the rest. A block that
 * opens the REPL (`$ replio` alone) is a session transcript, not commands, and is left out.
 * @module
 */

/** One `$ command` of a fenced block and the output shown below it. */
export interface DocExample {
  /** The file and line of the command, for failure messages. */
  where: string;
  command: string;
  expected: string[];
}

/** The `$ ` examples of one Markdown file, in order; `file` names them in messages. */
export function extractExamples(markdown: string, file: string): DocExample[] {
  const examples: DocExample[] = [];
  let fence: string | null = null;
  let current: DocExample | null = null;
  let transcript = false;
  markdown.split("\n").forEach((line, i) => {
    const marker = /^(```+|~~~+)/.exec(line)?.[1];
    if (marker && (fence === null || marker === fence)) {
      fence = fence === null ? marker : null;
      current = null;
      transcript = false;
      return;
    }
    if (fence === null || transcript) return;
    if (line.trim() === "$ replio") {
      transcript = true;
      current = null;
    } else if (/^\$ [a-z]/.test(line)) {
      // A command starts with a program name; `$ Run npm test` is replio's activity line.
      // A shell comment after the command is prose, not part of it.
      current = {
        where: `${file}:${i + 1}`,
        command: line.slice(2).replace(/\s{2,}#.*$/, ""),
        expected: [],
      };
      examples.push(current);
    } else if (current) {
      (current as DocExample).expected.push(line);
    }
  });
  return examples;
}

/**
 * Whether `actual` lines have the shape `expected` shows; returns the first mismatch, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(matchShape(["a", "...", "z…"], ["a", "b", "c", "zebra"]), null);
 * assert.equal(matchShape(["a", "b"], ["a", "c"]), 'line 2: expected "b", got "c"');
 * ```
 */
export function matchShape(expected: string[], actual: string[]): string | null {
  const want = trimEnd(expected.map((line) => line.trimEnd()));
  const got = trimEnd(actual.map((line) => line.trimEnd()));
  return matchFrom(want, 0, got, 0);
}

function matchFrom(want: string[], w: number, got: string[], g: number): string | null {
  if (w === want.length) {
    return g === got.length ? null : `unexpected extra output: "${got[g]}"`;
  }
  const line = want[w]!;
  if (line === "..." || line === "…") {
    for (let skip = g; skip <= got.length; skip++) {
      if (matchFrom(want, w + 1, got, skip) === null) return null;
    }
    return `nothing after line ${g + 1} matches "${want[w + 1] ?? "(end)"}"`;
  }
  const actual = got[g];
  if (actual === undefined) return `line ${g + 1}: expected "${line}", got the end of the output`;
  const prefix = /(\.\.\.|…)$/.test(line) ? line.replace(/(\.\.\.|…)$/, "") : null;
  const fits = prefix === null ? actual === line : actual.startsWith(prefix);
  if (!fits) return `line ${g + 1}: expected "${line}", got "${actual}"`;
  return matchFrom(want, w + 1, got, g + 1);
}

function trimEnd(lines: string[]): string[] {
  const out = [...lines];
  while (out.length && out.at(-1) === "") out.pop();
  return out;
}

/** A `replio …` command written in a shell block without output (`sh`, `bash`). */
export interface DocCommand {
  where: string;
  /** The command line from `replio` up to a pipe, `&&`, `;`, `&`, a redirection or a comment. */
  command: string;
}

/**
 * The `replio …` commands of a file's `sh` and `bash` blocks (after a pipe too); `$ ` example
 * lines are {@link extractExamples}'s.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const fence = "`".repeat(3);
 * const md = `${fence}sh\ngit diff | replio run --yes   # review\n${fence}\n`;
 * assert.deepEqual(extractCommands(md, "x.md"), [{ where: "x.md:2", command: "replio run --yes" }]);
 * ```
 */
export function extractCommands(markdown: string, file: string): DocCommand[] {
  const commands: DocCommand[] = [];
  let shell = false;
  let inFence = false;
  markdown.split("\n").forEach((line, i) => {
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      inFence = !inFence;
      shell = inFence && ["sh", "bash", "shell"].includes(fence[1]!);
      return;
    }
    if (!shell || line.startsWith("$ ") || line.trimStart().startsWith("#")) return;
    for (const match of line.matchAll(/(?:^|[|&;]\s*)(replio\b[^|&;#<>]*)/g)) {
      commands.push({ where: `${file}:${i + 1}`, command: match[1]!.trim() });
    }
  });
  return commands;
}
