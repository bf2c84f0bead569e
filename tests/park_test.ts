/**
 * Parked approvals: `run --park` stops at the first ask-gated call (exit 4), `approve` / `deny`
 * record the answer, `run --resume` continues from exactly that call; the file effect, the audit
 * trail and "nothing runs twice" are checked on real processes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadSession } from "../src/session/mod.ts";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";
import { waitUntil } from "./support/deadline.ts";

const mockArgs = (mock: MockModel) => ["--base-url", mock.baseUrl, "--model", "m"];

/** A model that asks for a command (ask-gated), then a read, then answers with what it got. */
function scriptedModel(): MockModel {
  return startMockModel([
    {
      toolCalls: [
        { name: "run_command", arguments: { command: "touch approved.txt" } },
        { name: "file_read", arguments: { path: "a.txt" } },
      ],
    },
    { text: "all done" },
  ]);
}

Deno.test("park, approve, resume: the approved command runs once and the turn finishes", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  await using mock = scriptedModel();
  const parked = await runReplio(
    ["run", ...mockArgs(mock), "--park", "--output", "json", "make the file"],
    { cwd: wt.path },
  );
  assert.equal(parked.code, 4, parked.stderr);
  const result = JSON.parse(parked.stdout);
  assert.equal(result.status, "parked");
  assert.equal(result.pending.tool, "run_command");
  assert.equal(result.pending.arguments.command, "touch approved.txt");
  const session = result.session as string;
  const callId = result.pending.call_id as string;
  // Nothing ran, and the read after it is still waiting too.
  await assert.rejects(Deno.stat(join(wt.path, "approved.txt")));

  // Resuming before anyone answered is a usage error naming the commands.
  const early = await runReplio(["run", ...mockArgs(mock), "--resume", session], { cwd: wt.path });
  assert.equal(early.code, 2);
  assert.match(early.stderr, new RegExp(`replio approve ${session}`));

  const approved = await runReplio(["approve", session], { cwd: wt.path });
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(
    approved.stdout,
    new RegExp(`Approved ${callId} \\(run_command "touch approved.txt"\\)`),
  );

  const resumed = await runReplio(
    ["run", ...mockArgs(mock), "--resume", session, "--output", "json"],
    { cwd: wt.path },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  const done = JSON.parse(resumed.stdout);
  assert.equal(done.status, "ok");
  assert.equal(done.content, "all done");
  await Deno.stat(join(wt.path, "approved.txt"));
  assert.deepEqual(mock.violations, []);
  // The model's second request carries both results, the approved command's first.
  const last = mock.requests.at(-1)!.messages.filter((m) => m.role === "tool");
  assert.deepEqual(last.map((m) => m.tool_call_id), [callId, "call_mock_2"]);
  assert.match(String(last[1]!.content), /hello/);

  // The audit trail: parked, then granted by the approval, then the read.
  const loaded = await loadSession(wt.path, session);
  const decisions = loaded.records.filter((r) => r.type === "permission").map((r) =>
    r.type === "permission" ? `${r.tool}:${r.decision}` : ""
  );
  assert.deepEqual(decisions, ["run_command:parked", "run_command:granted", "file_read:granted"]);

  // Resuming again: nothing waits, nothing runs twice.
  const again = await runReplio(["run", ...mockArgs(mock), "--resume", session], { cwd: wt.path });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /no call in it waits for approval/);
});

Deno.test("park, deny with a reason, resume: the model gets the reason, the command never runs", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  await using mock = scriptedModel();
  const parked = await runReplio(["run", ...mockArgs(mock), "--park", "go"], { cwd: wt.path });
  assert.equal(parked.code, 4);
  assert.match(parked.stderr, /Parked: \$ Run touch approved\.txt needs approval/);
  const session = /replio run --resume (\S+)/.exec(parked.stderr)![1]!;

  const denied = await runReplio(
    ["deny", session, "--call", "call_mock_1", "--reason", "not on a Friday"],
    { cwd: wt.path },
  );
  assert.equal(denied.code, 0, denied.stderr);
  const resumed = await runReplio(["run", ...mockArgs(mock), "--resume", session], {
    cwd: wt.path,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  await assert.rejects(Deno.stat(join(wt.path, "approved.txt")));
  const tool = mock.requests.at(-1)!.messages.find((m) =>
    m.role === "tool" && m.tool_call_id === "call_mock_1"
  );
  assert.match(String(tool?.content), /declined to run run_command \(not on a Friday\)/);

  // The audit trail: parked, then declined by the person's answer, with their reason.
  const loaded = await loadSession(wt.path, session);
  const permissions = loaded.records.filter((r) => r.type === "permission");
  assert.deepEqual(
    permissions.map((r) => r.type === "permission" ? `${r.tool}:${r.decision}` : ""),
    ["run_command:parked", "run_command:declined", "file_read:granted"],
  );
  assert.match(JSON.stringify(permissions[1]), /not on a Friday/);
});

Deno.test("a resume killed while the approved command runs never runs it again", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  // A sleep no other process runs, so ending it cannot end another test's command.
  const sleep = `sleep 300.${Math.floor(Math.random() * 1e9)}`;
  await using mock = startMockModel([
    {
      toolCalls: [{ name: "run_command", arguments: { command: `echo x >> runs.txt; ${sleep}` } }],
    },
    { text: "after" },
  ]);
  const parked = await runReplio(["run", ...mockArgs(mock), "--park", "--output", "json", "go"], {
    cwd: wt.path,
  });
  const session = JSON.parse(parked.stdout).session as string;
  assert.equal((await runReplio(["approve", session], { cwd: wt.path })).code, 0);

  const { replioCommand } = await import("./support/replio_process.ts");
  const child = replioCommand(["run", ...mockArgs(mock), "--resume", session], { cwd: wt.path })
    .spawn();
  // The command has started once its first line is in the file.
  await waitUntil(
    async () => (await Deno.readTextFile(join(wt.path, "runs.txt")).catch(() => "")) !== "",
    "the approved command to start",
    { onLate: () => child.kill("SIGKILL") },
  );
  child.kill("SIGKILL");
  await child.status;
  // kill -9 leaves the command's own process group running: end it (only it: the name is ours).
  await new Deno.Command("pkill", { args: ["-f", sleep] }).output();

  const again = await runReplio(
    ["run", ...mockArgs(mock), "--resume", session, "--output", "json"],
    {
      cwd: wt.path,
    },
  );
  assert.equal(again.code, 0, again.stderr);
  assert.equal(await Deno.readTextFile(join(wt.path, "runs.txt")), "x\n");
  const tool = mock.requests.at(-1)!.messages.find((m) => m.role === "tool");
  assert.match(String(tool?.content), /interrupted/);
});

Deno.test("a protected write parks for a person; --yes alone never grants it (control)", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  const write = {
    toolCalls: [{
      name: "file_write",
      arguments: { path: ".replio/config.yaml", content: "tool_permission:\n  bash: allow\n" },
    }],
  };
  const config = join(wt.path, ".replio", "config.yaml");
  // Control: headless --yes is refused, the file stays absent.
  {
    await using mock = startMockModel([write, { text: "refused" }]);
    const yes = await runReplio(["run", ...mockArgs(mock), "--yes", "go"], { cwd: wt.path });
    assert.equal(yes.code, 0, yes.stderr);
    await assert.rejects(Deno.stat(config));
  }
  await using mock = startMockModel([write, { text: "written" }]);
  const parked = await runReplio(["run", ...mockArgs(mock), "--park", "--output", "json", "go"], {
    cwd: wt.path,
  });
  assert.equal(parked.code, 4, parked.stderr);
  const result = JSON.parse(parked.stdout);
  assert.match(result.pending.reason, /^protected path \.replio\/config\.yaml/);
  await assert.rejects(Deno.stat(config));
  assert.equal((await runReplio(["approve", result.session], { cwd: wt.path })).code, 0);
  const resumed = await runReplio(["run", ...mockArgs(mock), "--resume", result.session], {
    cwd: wt.path,
  });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(await Deno.readTextFile(config), "tool_permission:\n  bash: allow\n");
});

Deno.test("--always-prefix allows the same words later, never a chained command behind them", async () => {
  await using wt = await tempWorktree({ "a.txt": "1\n", "b.txt": "1\n2\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "run_command", arguments: { command: "wc -l a.txt" } }] },
    {
      toolCalls: [
        // Same prefix, no shell syntax: allowed by the approval.
        { name: "run_command", arguments: { command: "wc -l b.txt" } },
        // Same prefix with a second command behind it: asks, and headless that is a denial.
        { name: "run_command", arguments: { command: "wc -l a.txt; touch pwned" } },
      ],
    },
    { text: "done" },
  ]);
  const parked = await runReplio(["run", ...mockArgs(mock), "--park", "--output", "json", "go"], {
    cwd: wt.path,
  });
  const session = JSON.parse(parked.stdout).session as string;
  const approved = await runReplio(["approve", session, "--always-prefix"], { cwd: wt.path });
  assert.equal(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /starting with "wc"/);
  const resumed = await runReplio(
    ["run", ...mockArgs(mock), "--resume", session, "--output", "json"],
    { cwd: wt.path },
  );
  assert.equal(resumed.code, 0, resumed.stderr);
  const calls = JSON.parse(resumed.stdout).tool_calls as { output: string; is_error: boolean }[];
  assert.match(calls[1]!.output, /2 b\.txt/);
  assert.equal(calls[2]!.is_error, true);
  await assert.rejects(Deno.stat(join(wt.path, "pwned")));
  // Control: the chained command does create the file when bash runs it.
  await new Deno.Command("bash", { args: ["-c", "wc -l a.txt; touch pwned"], cwd: wt.path })
    .output();
  await Deno.stat(join(wt.path, "pwned"));
});
