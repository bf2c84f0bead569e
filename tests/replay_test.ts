/**
 * `replio replay`: the shipped tour replays cleanly with no model; a deliberate change to what a
 * tool returns fails with a readable diff; `--update` re-records; the worktree is left alone.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runReplio } from "./support/replio_process.ts";

const EXAMPLES = new URL("../examples/", import.meta.url).pathname;
const TOUR_SESSION = join(EXAMPLES, "sessions", "tour.jsonl");

/** A copy of examples/tour and its session, to change without touching the repository. */
async function tourCopy(): Promise<{ path: string; session: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_tour_test_" }));
  await new Deno.Command("cp", { args: ["-a", `${join(EXAMPLES, "tour")}/.`, path] }).output();
  // The session file sits outside the worktree, or grep would find it.
  const session = await Deno.makeTempFile({ prefix: "replio_tour_", suffix: ".jsonl" });
  await Deno.copyFile(TOUR_SESSION, session);
  return {
    path,
    session,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(path, { recursive: true });
      await Deno.remove(session);
    },
  };
}

Deno.test("the shipped tour replays with every result matching, and the tour is untouched", async () => {
  const before = await Deno.readTextFile(join(EXAMPLES, "tour", "src", "greet.ts"));
  // --trust: the recording's answers (a parked command approved) count only in a trusted folder.
  const ran = await runReplio(
    ["replay", TOUR_SESSION, "--path", join(EXAMPLES, "tour"), "--trust"],
    { cwd: EXAMPLES },
  );
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  assert.match(ran.stdout, /^replay of tour: 4 turns, 7 calls$/m);
  assert.match(ran.stdout, /^ok {3}call_mock_5 file_edit$/m);
  assert.match(ran.stdout, /every result matches the recording/);
  // The edit ran in a scratch copy.
  assert.equal(await Deno.readTextFile(join(EXAMPLES, "tour", "src", "greet.ts")), before);
});

Deno.test("a replay after a change to a tool's output fails with a readable diff", async () => {
  await using tour = await tourCopy();
  const greet = join(tour.path, "src", "greet.ts");
  await Deno.writeTextFile(
    greet,
    (await Deno.readTextFile(greet)).replace("TODO: greet people by name", "TODO: say goodbye"),
  );
  const ran = await runReplio(["replay", tour.session, "--trust"], { cwd: tour.path });
  assert.equal(ran.code, 1, ran.stderr);
  assert.match(ran.stdout, /^DIFF call_mock_2 grep$/m);
  assert.match(ran.stdout, /^ {5}- src\/greet\.ts:1: \/\/ TODO: greet people by name$/m);
  assert.match(ran.stdout, /^ {5}\+ src\/greet\.ts:1: \/\/ TODO: say goodbye$/m);
  assert.match(ran.stdout, /calls differ: rerun with --update to re-record/);

  const json = JSON.parse(
    (await runReplio(["replay", tour.session, "--json", "--trust"], { cwd: tour.path }))
      .stdout,
  );
  assert.equal(json.same, false);
  const outcomes = Object.fromEntries(
    json.calls.map((c: { call: string; outcome: string }) => [c.call, c.outcome]),
  );
  // grep sees the new text; glob and list_dir see the file's new time and size.
  assert.equal(outcomes.call_mock_1, "same");
  assert.equal(outcomes.call_mock_2, "differs");
  // The approved command still runs: the recording's answer is for exactly this call.
  assert.equal(outcomes.call_mock_7, "same");

  // --update re-records the session; the next replay matches again.
  const updated = await runReplio(["replay", tour.session, "--update", "--trust"], {
    cwd: tour.path,
  });
  assert.equal(updated.code, 0, updated.stderr);
  const again = await runReplio(["replay", tour.session, "--trust"], { cwd: tour.path });
  assert.equal(again.code, 0, again.stdout);
  assert.match(await Deno.readTextFile(tour.session), /TODO: say goodbye/);
});

Deno.test("replay --show renders the session as the REPL does", async () => {
  const ran = await runReplio(
    ["replay", TOUR_SESSION, "--path", join(EXAMPLES, "tour"), "--show", "--trust"],
    { cwd: EXAMPLES },
  );
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /^> Show me around this project\.$/m);
  assert.match(ran.stdout, /^← Read README\.md$/m);
  assert.match(ran.stdout, /^\$ Run deno run src\/main\.ts$/m);
});

Deno.test("replay of a missing session is a usage error", async () => {
  const ran = await runReplio(["replay", "ses_missing"], { cwd: EXAMPLES });
  assert.equal(ran.code, 2);
  assert.match(ran.stderr, /no such session file or session id/);
});

Deno.test("a replay's scratch copy is trusted exactly when the worktree is: an untrusted plugin never runs", async () => {
  await using tour = await tourCopy();
  const markers = await Deno.makeTempDir({ prefix: "replio_replay_marker_" });
  const marker = join(markers, "plugin-ran");
  await Deno.mkdir(join(tour.path, ".replio", "plugins"), { recursive: true });
  await Deno.writeTextFile(
    join(tour.path, ".replio", "plugins", "mark.js"),
    `/*! replio-plugin {"permissions": {"write": [${JSON.stringify(marker)}]}} */
Deno.writeTextFileSync(${JSON.stringify(marker)}, "x");
export const plugin = { name: "mark", tools: [] };
`,
  );
  await Deno.writeTextFile(
    join(tour.path, ".replio", "config.yaml"),
    "plugins: [.replio/plugins/mark.js]\n",
  );
  try {
    const untrusted = await runReplio(["replay", tour.session], { cwd: tour.path });
    // Untrusted, the recording's approval grants nothing: the approved command is declined now.
    assert.equal(untrusted.code, 1, untrusted.stdout + untrusted.stderr);
    assert.match(untrusted.stdout, /^DIFF call_mock_7 run_command$/m);
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
    // Control: the user trusts the worktree, and the same replay loads the plugin.
    await Deno.mkdir(join(tour.path, ".xdg", "replio"), { recursive: true });
    await Deno.writeTextFile(
      join(tour.path, ".xdg", "replio", "config.yaml"),
      `trusted_folders: [${tour.path}]\n`,
    );
    const trusted = await runReplio(["replay", tour.session], { cwd: tour.path });
    assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
    await Deno.stat(marker);
  } finally {
    await Deno.remove(markers, { recursive: true });
  }
});
