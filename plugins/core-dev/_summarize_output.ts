/**
 * The one-line pass/fail summary of a test runner's or linter's output, in one shape whatever
 * the runner: `3 passed, 1 failed, 2 skipped (deno)`. The model reads it before the tail.
 * @module
 */

/** Counts a test runner reported; missing ones are left out of the summary. */
interface Counts {
  passed: number | undefined;
  failed: number | undefined;
  skipped: number | undefined;
}

type Recognizer = (text: string) => string | null;

/**
 * The summary of `output` (ANSI colours already removed), or null when no known runner's
 * summary is in it. The last summary wins: a watch-free runner prints one, at the end.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   summarizeOutput("...\nFAILED | 1 passed | 1 failed | 1 ignored (35ms)\n"),
 *   "1 passed, 1 failed, 1 skipped (deno)",
 * );
 * assert.equal(summarizeOutput("hello"), null);
 * ```
 */
export function summarizeOutput(output: string): string | null {
  for (const recognize of RECOGNIZERS) {
    const summary = recognize(output);
    if (summary !== null) return summary;
  }
  return null;
}

const RECOGNIZERS: readonly Recognizer[] = [
  // deno test: "ok | 3 passed (2 steps) | 0 failed | 1 ignored (12ms)"
  (text) => {
    const line = lastMatch(text, /^(?:ok|FAILED) \| \d+ passed.*$/gm);
    return line === null ? null : counted("deno", {
      passed: count(line, /(\d+) passed/),
      failed: count(line, /(\d+) failed/),
      skipped: count(line, /(\d+) ignored/),
    });
  },
  // cargo test: one "test result:" line per test binary, summed.
  (text) => {
    const lines = [
      ...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm),
    ];
    if (lines.length === 0) return null;
    const sum = (group: number) => lines.reduce((total, m) => total + Number(m[group]), 0);
    return counted("cargo", { passed: sum(1), failed: sum(2), skipped: sum(3) });
  },
  // pytest: "==== 2 passed, 1 failed, 1 skipped in 0.12s ===="
  (text) => {
    const line = lastMatch(
      text,
      /^=+ .*\b(?:passed|failed|errors?|skipped|no tests ran)\b.* in [\d.]+s.*=+$/gm,
    );
    if (line === null) return null;
    const failed = count(line, /(\d+) failed/);
    const errors = count(line, /(\d+) errors?/);
    return counted("pytest", {
      passed: count(line, /(\d+) passed/) ?? 0,
      failed: (failed ?? 0) + (errors ?? 0),
      skipped: count(line, /(\d+) skipped/),
    });
  },
  // unittest: "Ran 4 tests in 0.001s" then "OK (skipped=1)" or "FAILED (failures=1, errors=1)"
  (text) => {
    const ran = /^Ran (\d+) tests? in .*\n+^(OK|FAILED)(?: \((.*)\))?$/m.exec(text);
    if (!ran) return null;
    const detail = ran[3] ?? "";
    const failed = (count(detail, /(?<!expected )failures=(\d+)/) ?? 0) +
      (count(detail, /errors=(\d+)/) ?? 0);
    const skipped = count(detail, /skipped=(\d+)/);
    const expected = count(detail, /expected failures=(\d+)/) ?? 0;
    return counted("unittest", {
      passed: Number(ran[1]) - failed - (skipped ?? 0) - expected,
      failed,
      skipped,
    });
  },
  // jest: "Tests:       1 failed, 2 passed, 3 total"
  (text) => {
    const line = lastMatch(text, /^Tests:\s+.*\d+ total$/gm);
    return line === null ? null : counted("jest", {
      passed: count(line, /(\d+) passed/) ?? 0,
      failed: count(line, /(\d+) failed/) ?? 0,
      skipped: count(line, /(\d+) skipped/),
    });
  },
  // vitest: "      Tests  1 failed | 2 passed (3)"
  (text) => {
    const line = lastMatch(text, /^\s*Tests\s+\d+ .*\(\d+\)$/gm);
    return line === null ? null : counted("vitest", {
      passed: count(line, /(\d+) passed/) ?? 0,
      failed: count(line, /(\d+) failed/) ?? 0,
      skipped: count(line, /(\d+) skipped/),
    });
  },
  // node --test: "# pass 3" / "# fail 1" (TAP) or "ℹ pass 3" (spec reporter)
  (text) => {
    const passed = lastCount(text, /^(?:# |ℹ )pass (\d+)$/gm);
    const failed = lastCount(text, /^(?:# |ℹ )fail (\d+)$/gm);
    if (passed === undefined || failed === undefined) return null;
    return counted("node --test", {
      passed,
      failed,
      skipped: lastCount(text, /^(?:# |ℹ )skipped (\d+)$/gm),
    });
  },
  // go test: "ok  \tpkg\t0.01s" and "FAIL\tpkg\t0.01s", one per package.
  (text) => {
    const ok = [...text.matchAll(/^ok\s+\S+/gm)].length;
    const failed = [...text.matchAll(/^FAIL\s+\S+/gm)].length;
    if (ok + failed === 0) return null;
    return `${ok} ${ok === 1 ? "package" : "packages"} passed, ${failed} failed (go test)`;
  },
  // Linters and formatters: a problem count first, else their closing line.
  (text) =>
    lastMatch(
      text,
      /^(?:Found \d+ (?:problems?|errors?)\b.*|All checks passed!|✖ \d+ problems? .*)$/gm,
    ),
  (text) =>
    lastMatch(text, /^(?:\d+ files? (?:reformatted|left unchanged).*|Checked \d+ files?)$/gm),
];

function counted(runner: string, counts: Counts): string {
  const parts = [`${counts.passed ?? 0} passed`, `${counts.failed ?? 0} failed`];
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  return `${parts.join(", ")} (${runner})`;
}

function lastMatch(text: string, pattern: RegExp): string | null {
  let last: string | null = null;
  for (const match of text.matchAll(pattern)) last = match[0].trim();
  return last;
}

function count(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

function lastCount(text: string, pattern: RegExp): number | undefined {
  let last: number | undefined;
  for (const match of text.matchAll(pattern)) last = Number(match[1]);
  return last;
}
