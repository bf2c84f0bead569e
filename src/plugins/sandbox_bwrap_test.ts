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

/** The probe's answer in a fresh process: in the background (as `replio run` starts it) or not. */
async function probeIn(how: "background" | "sync", path: string) {
  const here = import.meta.dirname!;
  const script = `
import { Config } from "${here}/../config/mod.ts";
import { bwrapProblem, bwrapUsable, probeBwrapSoon } from "${here}/sandbox_bwrap.ts";
if ("${how}" === "background") await probeBwrapSoon(Config.defaults());
console.log(JSON.stringify({ usable: bwrapUsable(), reason: bwrapProblem() }));`;
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    env: { PATH: path },
  }).output();
  assert.ok(success);
  return JSON.parse(new TextDecoder().decode(stdout)) as { usable: boolean; reason: string };
}

Deno.test("the background probe gives the answer the synchronous one gives, bwrap there or not", async () => {
  const path = Deno.env.get("PATH") ?? "";
  const found = await probeIn("sync", path);
  assert.deepEqual(await probeIn("background", path), found);
  // Control: without bwrap on PATH both say so, so the comparison above can tell them apart.
  const missing = await probeIn("sync", "/nonexistent");
  assert.equal(missing.usable, false);
  assert.match(missing.reason, /bwrap|No such file|not found/i);
  assert.deepEqual(await probeIn("background", "/nonexistent"), missing);
  // Where bwrap works (CI installs it), the first answer is yes.
  if (new Deno.Command("bwrap", { args: ["--version"] }).outputSync().success) {
    assert.equal(found.usable, true);
  }
});
