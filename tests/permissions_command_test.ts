/**
 * `replio permissions` (alias `doctor`): it reports the grants and each tool's standing, and
 * the narrowest flag set it suggests for the config really serves every tool the config enables.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

interface Report {
  granted: Record<string, string>;
  tools: { name: string; status: string; detail: string }[];
  hosts: { model: string; web: string };
  suggested: string[];
}

Deno.test("replio permissions suggests the narrowest flags, and they serve the same tools", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  await using model = startMockModel([]);
  const host = new URL(model.baseUrl).host;
  // Global config (the child's XDG_CONFIG_HOME): no shell, no web, a fixed model server.
  await wt.write(
    ".xdg/replio/config.yaml",
    `base_url: ${model.baseUrl}\nmodel: m\ntool_permission:\n  bash: deny\n` +
      `tools:\n  deny: [web_fetch, web_search]\n`,
  );
  const full = await runReplio(["permissions", "--json"], { cwd: wt.path });
  assert.equal(full.code, 0, full.stderr);
  const report = JSON.parse(full.stdout) as Report;
  assert.deepEqual(report.suggested, [
    "--no-prompt",
    `--allow-read=${wt.path}`,
    `--allow-write=${wt.path}`,
    "--allow-run=git",
    `--allow-net=${host}`,
    "--allow-env=XDG_CONFIG_HOME,HOME,OPENAI_API_KEY",
  ]);
  assert.equal(report.hosts.model, `${host} (granted)`);
  assert.deepEqual(
    report.tools.filter((t) => t.status === "denied").map((t) => t.name).sort(),
    ["code_format", "code_lint", "code_test", "run_command", "web_fetch", "web_search"],
  );

  // Under exactly those flags, every tool the config enables is still usable.
  const narrow = await runReplio(["permissions", "--json"], {
    cwd: wt.path,
    denoFlags: report.suggested.slice(1),
  });
  assert.equal(narrow.code, 0, narrow.stderr);
  const under = JSON.parse(narrow.stdout) as Report;
  assert.deepEqual(under.tools.filter((t) => t.status === "unavailable"), []);
  assert.deepEqual(
    under.tools.map((t) => [t.name, t.status === "denied"]),
    report.tools.map((t) => [t.name, t.status === "denied"]),
  );
  assert.equal(under.granted.net, "some hosts");
});

Deno.test("replio doctor prints grants, standings and the flags to run with", async () => {
  await using wt = await tempWorktree();
  const run = await runReplio(["doctor"], {
    cwd: wt.path,
    denoFlags: [`--allow-read=${wt.path}`],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^ {2}write not the worktree$/m);
  assert.match(run.stdout, /^ {2}git +unavailable: needs --allow-run=git$/m);
  assert.match(run.stdout, /^ {2}file_read +usable in the worktree; other paths only where/m);
  assert.match(run.stdout, /^ {2}deno run --no-prompt --allow-read=/m);
  assert.ok(!run.stdout.includes(join(wt.path, ".xdg")), "no global config path leaks");
});
