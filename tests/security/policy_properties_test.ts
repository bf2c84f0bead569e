/**
 * Checks, on thousands of random worlds (global and project config, trust, mode, call, answer) run through invokeTool and judged by what changed on disk:
 * an explicit deny beats every allow, answer and --yes; a protected path is never written without a person's answer; plan mode never writes or runs; an untrusted project never loosens; an answer never covers another call; `policy explain` gives the call's decision.
 * Each run draws a fresh seed and prints it: rerun one with REPLIO_PROPERTY_SEED=<n> deno task test tests/security/policy_properties_test.ts (REPLIO_PROPERTY_CASES=<n> sets the number of calls).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CORE_PLUGIN } from "../../src/agents/mod.ts";
import type { ConfigError } from "../../src/config/mod.ts";
import { recordAnswer, resumeState } from "../../src/engine/mod.ts";
import { createRegistry } from "../../src/plugins/mod.ts";
import { SessionApprovals } from "../../src/tools/mod.ts";
import {
  type Answerer,
  drawAnswerer,
  drawCall,
  SAME_CALL,
  type Variant,
  variantCall,
} from "../support/policy_call_draws.ts";
import {
  type CallPlan,
  checkedCall,
  failCase,
  type MadeCall,
  type WorldRun,
} from "../support/policy_calls.ts";
import { countCase, type Tally } from "../support/policy_checks.ts";
import { createDraw, drawConfig, drawMode, type DrawnConfig } from "../support/policy_draws.ts";
import { buildWorld, createWorldTemplate } from "../support/policy_world.ts";
import { runReplio } from "../support/replio_process.ts";

/** Calls per run unless REPLIO_PROPERTY_CASES says otherwise. */
const DEFAULT_CASES = 3000;
/** Calls drawn in one world before the next is made (a world costs a git init). */
const CALLS_PER_WORLD = 50;
/** Fewer calls than this may leave a property unexercised; the run then only reports it. */
const CASES_TO_EXERCISE_ALL = 1000;

/** Worlds `replio policy explain` is run in (each a process start, so few). */
const EXPLAIN_SAMPLES = 4;

/** The bundled tools calls are drawn from: writes, edits, reads, commands, a test run, commits. */
const DRAWN_TOOLS = [
  "file_write",
  "file_edit",
  "file_read",
  "list_dir",
  "glob",
  "grep",
  "run_command",
  "code_test",
  "git_commit",
];

/** How a resumed turn's calls relate to the parked one; the exact call is drawn most. */
const VARIANTS: readonly Variant[] = [
  "exact",
  "exact",
  "reordered",
  "alias",
  "extra-argument",
  "other-id",
  "changed-arguments",
  "other-tool",
];

/** A number from the environment, or `fallback`; anything else is a clear error. */
function numberFromEnv(name: string, fallback: number, what: string): number {
  const text = Deno.env.get(name);
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot read ${name}: expected ${what}, got "${text}": unset it or fix it`,
    );
  }
  return value;
}

function report(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
}

let chosenSeed: number | undefined;

/**
 * The seed of this run, the same for both tests of the file: REPLIO_PROPERTY_SEED, or a fresh
 * one so that every CI run explores worlds the last did not.
 */
function runSeed(): number {
  chosenSeed ??= numberFromEnv(
    "REPLIO_PROPERTY_SEED",
    Math.floor(Math.random() * 2 ** 32),
    "a seed (a whole number)",
  );
  return chosenSeed;
}

/** Runs `check`; on any failure (a thrown error too, not only a broken property) names the seed. */
async function withSeed(seed: number, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    report(`Failed with seed ${seed}: rerun with REPLIO_PROPERTY_SEED=${seed}`);
    throw error;
  }
}

/** The bundled tools the draws use, their aliases, and every name tools.deny / allow may list. */
function drawnTools() {
  const registry = createRegistry([CORE_PLUGIN]);
  const aliases = new Map(
    registry.list().map((tool) => [
      tool.name,
      (tool.aliases ?? []).map((alias) => typeof alias === "string" ? alias : alias.name),
    ]),
  );
  const names = DRAWN_TOOLS.flatMap((name) => [name, ...aliases.get(name) ?? []]);
  return { registry, aliases, names };
}

/** Draws worlds from `seed` until `use` has had `count` calls' worth of them. */
async function eachWorld(
  seed: number,
  tally: Tally,
  use: (run: WorldRun) => Promise<number>,
  count: number,
): Promise<void> {
  const draw = createDraw(seed);
  const { registry, aliases, names } = drawnTools();
  await using template = await createWorldTemplate();
  for (let index = 0, made = 0; made < count; index++) {
    const drawn = drawConfig(draw, names);
    const built = await buildWorld(drawn, template);
    if ("error" in built) {
      assertClearConfigError(built.error, drawn);
      countCase(tally, "clear error: a trusted project file that is not YAML");
      continue;
    }
    await using world = built.world;
    const approvals = new SessionApprovals();
    made += await use({ drawn, world, registry, aliases, approvals, draw, seed, index, tally });
  }
}

Deno.test("policy properties hold for random configs, trust, modes, calls and answers", async () => {
  const seed = runSeed();
  const cases = numberFromEnv("REPLIO_PROPERTY_CASES", DEFAULT_CASES, "a number of calls");
  report(`policy properties: seed ${seed}, ${cases} calls (rerun: REPLIO_PROPERTY_SEED=${seed})`);
  await withSeed(seed, () => checkProperties(seed, cases));
});

/** Draws `cases` calls (and resumed turns) over fresh worlds, checking each as it goes. */
async function checkProperties(seed: number, cases: number): Promise<void> {
  const started = performance.now();
  const tally: Tally = new Map();
  let made = 0;
  await eachWorld(seed, tally, async (run) => {
    const before = made;
    for (let i = 0; i < CALLS_PER_WORLD && made < cases; i++) {
      const call = drawCall(run.draw, made, run.world.worktree, run.aliases);
      const mode = drawMode(run.draw, run.drawn);
      const plan = { call, mode, answerer: drawAnswerer(run.draw, call.tool) };
      const first = await checkedCall(run, plan);
      made++;
      if (first?.parked && run.draw.chance(0.8)) {
        made += await resumeWithAnswer(run, plan, first, made);
      }
    }
    return made - before;
  }, cases);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  report(`policy properties: ${made} calls in ${seconds} s (seed ${seed}); exercised:`);
  for (const [label, n] of [...tally].sort()) report(`  ${n}\t${label}`);
  if (cases < CASES_TO_EXERCISE_ALL) return;
  for (const label of EXERCISED) {
    assert.ok(
      [...tally.keys()].some((key) => key.startsWith(label)),
      `seed ${seed}: no call exercised "${label}"`,
    );
  }
}

Deno.test("replio policy explain gives the decision the call gets, on drawn worlds", async () => {
  const seed = runSeed();
  report(`policy explain sample: seed ${seed} (rerun: REPLIO_PROPERTY_SEED=${seed})`);
  await withSeed(seed, () => checkExplainCommand(seed));
});

/**
 * Runs the real `replio policy explain --json` on one drawn call per world (global config found
 * through XDG_CONFIG_HOME, as for a user) and holds its action and promise to what the call gets.
 */
async function checkExplainCommand(seed: number): Promise<void> {
  const tally: Tally = new Map();
  await eachWorld(seed, tally, async (run) => {
    const { world, drawn, draw } = run;
    const call = drawCall(draw, run.index, world.worktree, run.aliases);
    const mode = drawMode(draw, drawn);
    const explained = await runReplio(
      [
        "policy",
        "explain",
        call.name,
        JSON.stringify(call.args),
        "--json",
        ...(mode === undefined ? [] : ["--mode", mode]),
        ...(drawn.trustFlag ? ["--trust"] : []),
      ],
      { cwd: world.worktree, env: { XDG_CONFIG_HOME: join(world.root, "xdg") } },
    );
    for (const answer of ["no", "yes"] as const) {
      const plan: CallPlan = { call, mode, answerer: { kind: "headless", answer } };
      const made = await checkedCall(run, plan);
      if (made === null) {
        // The mode is unknown in this world: the command must say so, as the policy did.
        assert.equal(explained.code, 2, explained.stderr);
        assert.match(explained.stderr, /Cannot use mode "[^"]+": no such mode/);
        return 1;
      }
      assert.equal(explained.code, 0, explained.stderr);
      const { action, reason, protected: isProtected } = JSON.parse(explained.stdout);
      const promised = action === "allow" || (action === "ask" && answer === "yes" && !isProtected)
        ? "granted"
        : "denied";
      const { seen } = made;
      if (action !== seen.audit?.action || promised !== seen.decision) {
        failCase(run, plan, seen, {
          property: "policy explain gives the same decision the call gets",
          detail:
            `replio policy explain says ${action} (${reason})${
              isProtected ? ", a protected path" : ""
            }, so ${promised} with ${answer === "yes" ? "--yes" : "no --yes"}; ` +
            `the call got ${seen.audit?.action} → ${seen.decision}`,
        });
      }
      countCase(tally, `explain command agreed (${action})`);
    }
    return 1;
  }, EXPLAIN_SAMPLES);
  report(`policy explain sample: ${[...tally].map(([label, n]) => `${n} ${label}`).join(", ")}`);
}

/** Labels (prefixes) every full run must have counted: each property and its control. */
const EXERCISED = [
  "deny held",
  "control: a tool no deny names ran",
  "protected path held",
  "control: a protected path written on a person's answer",
  "control: an unprotected write ran unasked",
  "plan stopped a write or command",
  "control: a write or command ran outside plan",
  "untrusted project tightened",
  "untrusted project compared",
  "control: a trusted project loosened",
  "answer used for its own call",
  "answer refused for another call",
  "control: a granted marker call is seen",
  "control: a granted file call is seen",
  "control: a granted read call is seen",
  "explain agreed (allow)",
  "explain agreed (ask)",
  "explain agreed (deny)",
  "clear error: an unknown mode",
];

/**
 * A parked call answered as `replio approve` / `replio deny` record it, then the resumed turn:
 * one to three later calls — the same call as the model may resend it, or a different one —
 * under the resumed run's mode and flags. The answer must be used for the parked call once, and
 * for no other. Returns the number of calls made.
 */
async function resumeWithAnswer(
  run: WorldRun,
  plan: CallPlan,
  first: MadeCall,
  made: number,
): Promise<number> {
  const { world, draw, registry } = run;
  const parkedCall = plan.call;
  const { activity, reason, fingerprint } = first.parked!;
  // What the loop records when a --park run stops at a call (src/engine/agent.ts).
  world.session.append({
    type: "pending",
    call_id: parkedCall.id,
    tool: registry.lookup(parkedCall.name)!.tool.name,
    arguments: parkedCall.args,
    activity,
    reason,
    fingerprint,
  });
  const decision = draw.pick(["granted", "declined"] as const);
  await recordAnswer(world.session, decision, { callId: parkedCall.id });
  const parked = world.session.parked().find((p) => p.call.call_id === parkedCall.id)!;
  const state = resumeState(world.session, parked);
  const mode = draw.chance(0.6) ? plan.mode : drawMode(draw, run.drawn);
  const answerer: Answerer = {
    kind: "headless",
    answer: draw.pick(["no", "no", "yes", "park"] as const),
  };
  let isSpent = false;
  let calls = 0;
  for (let i = 0, n = 1 + Math.floor(draw.pick([0, 1, 2])); i < n; i++) {
    const variant = draw.pick(VARIANTS);
    const call = variantCall(parkedCall, variant, made + calls, run.aliases);
    const story = `resumed after ${parkedCall.id} (${parkedCall.name}) was parked and answered ` +
      `${decision}; this call is its "${variant}" variant, call ${i + 1} of the resumed turn`;
    const next = await checkedCall(run, { call, mode, answerer, answer: state.answer, story });
    calls++;
    if (next === null) break;
    const { seen } = next;
    const covers: boolean = SAME_CALL.has(variant) && !isSpent &&
      seen.explained?.resolution.action === "ask";
    const used = seen.given !== undefined;
    if (used !== covers) {
      failCase(run, { call, mode, answerer, story }, seen, {
        property: "an answer never covers a call it was not given for",
        detail: `the ${decision} answer ${used ? "was used for" : "was not used for"} a ` +
          `"${variant}" call${isSpent ? " after it had been used" : ""} ` +
          `(explain: ${seen.explained?.resolution.action})`,
      });
    }
    isSpent ||= covers;
    const label = covers ? "answer used for its own call" : "answer refused for another call";
    countCase(run.tally, `${label} (${variant})`);
  }
  return calls;
}

function assertClearConfigError(error: ConfigError, drawn: DrawnConfig): void {
  assert.ok(drawn.project === "invalid", `a drawn config failed to load: ${error.message}`);
  assert.match(
    error.message,
    /^Cannot load \/\S+\/\.replio\/config\.yaml: invalid YAML: .+: fix the file's syntax$/,
  );
}
