import assert from "node:assert/strict";
import { summarizeOutput } from "./_summarize_output.ts";

// Each sample is the closing part of the runner's real output.
const SAMPLES: [string, string, string][] = [
  [
    "deno",
    "b => ./a_test.ts:2:6\n\nFAILED | 1 passed | 1 failed | 1 ignored (35ms)\n\nerror: Test failed\n",
    "1 passed, 1 failed, 1 skipped (deno)",
  ],
  ["deno steps", "ok | 2 passed (3 steps) | 0 failed (12ms)\n", "2 passed, 0 failed (deno)"],
  [
    "node --test tap",
    "1..2\n# tests 2\n# suites 0\n# pass 1\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0\n",
    "1 passed, 1 failed (node --test)",
  ],
  [
    "node --test spec",
    "ℹ tests 3\nℹ suites 0\nℹ pass 3\nℹ fail 0\nℹ cancelled 0\nℹ skipped 1\nℹ todo 0\n",
    "3 passed, 0 failed, 1 skipped (node --test)",
  ],
  [
    "pytest",
    "FAILED test_u.py::T::test_d - RuntimeError: e\n" +
    "==================== 2 failed, 1 passed, 1 skipped in 0.89s ====================\n",
    "1 passed, 2 failed, 1 skipped (pytest)",
  ],
  [
    "pytest errors",
    "=========== 3 passed, 1 error in 0.12s ===========\n",
    "3 passed, 1 failed (pytest)",
  ],
  [
    "unittest",
    "-----------------------------------------------------------------\n" +
    "Ran 4 tests in 0.001s\n\nFAILED (failures=1, errors=1, skipped=1)\n",
    "1 passed, 2 failed, 1 skipped (unittest)",
  ],
  ["unittest ok", "Ran 3 tests in 0.000s\n\nOK\n", "3 passed, 0 failed (unittest)"],
  [
    "cargo",
    "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; " +
    "finished in 0.00s\n\n   Doc-tests x\n\ntest result: FAILED. 1 passed; 2 failed; 0 ignored; " +
    "0 measured; 0 filtered out; finished in 0.01s\n",
    "4 passed, 2 failed, 1 skipped (cargo)",
  ],
  [
    "go",
    "--- FAIL: TestX (0.00s)\nFAIL\nFAIL\texample.com/a\t0.002s\nok  \texample.com/b\t0.003s\nFAIL\n",
    "1 package passed, 1 failed (go test)",
  ],
  [
    "jest",
    "Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 4 passed, 5 total\n" +
    "Snapshots:   0 total\nTime:        0.5 s\n",
    "4 passed, 1 failed (jest)",
  ],
  [
    "vitest",
    " Test Files  1 failed | 1 passed (2)\n      Tests  1 failed | 3 passed | 1 skipped (5)\n" +
    "   Start at  10:00:00\n",
    "3 passed, 1 failed, 1 skipped (vitest)",
  ],
  ["deno lint", "  docs: https://x\n\n\nFound 1 problem\nChecked 1 file\n", "Found 1 problem"],
  ["deno fmt", "/tmp/f.ts\nChecked 1 file\n", "Checked 1 file"],
  ["ruff", "Found 3 errors.\n[*] 2 fixable with the `--fix` option.\n", "Found 3 errors."],
  [
    "ruff format",
    "2 files reformatted, 5 files left unchanged\n",
    "2 files reformatted, 5 files left unchanged",
  ],
];

Deno.test("summarizeOutput recognises each runner's summary", () => {
  for (const [runner, output, expected] of SAMPLES) {
    assert.equal(summarizeOutput(output), expected, runner);
  }
});

Deno.test("summarizeOutput returns null for output without a summary", () => {
  assert.equal(summarizeOutput("hello\nworld\n"), null);
  assert.equal(summarizeOutput(""), null);
});
