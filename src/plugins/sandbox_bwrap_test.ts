import assert from "node:assert/strict";
import { sandboxHint, type SandboxPlan } from "./sandbox_bwrap.ts";

const BWRAP: SandboxPlan = {
  kind: "bwrap",
  network: false,
  worktree: "/tmp/wt",
  label: "bwrap(net=off, write=worktree)",
};

Deno.test("sandboxHint names a write the sandbox refused: read-only, or the host's /tmp hidden", () => {
  assert.match(
    sandboxHint(BWRAP, 1, "touch: cannot touch '/etc/x': Read-only file system")!,
    /writes outside the worktree/,
  );
  // /tmp is private inside the sandbox: a host path there reads as missing, not read-only.
  assert.match(
    sandboxHint(BWRAP, 1, "touch: cannot touch '/tmp/other/x': No such file or directory")!,
    /\/tmp is private inside the sandbox/,
  );
  assert.match(
    sandboxHint(BWRAP, 1, "bash: line 1: /tmp/x: No such file or directory")!,
    /private/,
  );
});

Deno.test("sandboxHint blames nothing the sandbox did not do", () => {
  // A file missing inside the worktree is the command's own business.
  assert.equal(
    sandboxHint(BWRAP, 1, "cat: /tmp/wt/missing.txt: No such file or directory"),
    null,
  );
  // …but a sibling that merely starts with the worktree's name is outside it.
  assert.notEqual(sandboxHint(BWRAP, 1, "cat: /tmp/wtx: No such file or directory"), null);
  assert.equal(sandboxHint(BWRAP, 0, "Read-only file system"), null, "it succeeded");
  assert.equal(sandboxHint({ ...BWRAP, kind: "none" }, 1, "Read-only file system"), null);
  assert.equal(sandboxHint(BWRAP, 1, "error: test failed"), null);
});
