/**
 * One scripted session of the session-length curve (issue 26, curve 1): a fresh copy of the
 * peers fixture, the peers' mock model scripted for N rounds (bench/peers/README.md), and one
 * agent run under treemon (whole process tree: wall, CPU, peak PSS). What the mock logged gives
 * the rounds themselves: when each request came, and its size.
 * @module
 */
import { dirname, join } from "node:path";
import { withDeadline } from "./scale_process.ts";

const PEERS = new URL("./peers/", import.meta.url).pathname;
/** The prompt bench/peers/run.sh sends: the mock answers requests that carry its marker. */
export const PROMPT = "BENCH-TASK: this is a scripted benchmark. Do exactly the tool calls you " +
  "are given, then reply with the final message.";

/** An agent as the bench runs it. */
export interface Agent {
  name: string;
  /** The command, given the mock's base URL (up to `/v1`) and the rounds it will ask for. */
  command(baseUrl: string, rounds: number): string[];
  /** Variables beyond the base environment every agent gets. */
  env: Record<string, string>;
  /** Files written into the agent's home before each session (path relative to it → text). */
  files?: Record<string, string>;
}

/** One main request of the mock's log: a tool call asked for (`k` < N) or the final answer. */
interface Request {
  k: number;
  /** Wall-clock time it arrived, ms since the epoch. */
  at: number;
  bytes: number;
}

/** What one session cost and did. */
export interface SessionRun {
  agent: string;
  rounds: number;
  honest: boolean;
  /** Why a run does not count, when it does not. */
  problem: string;
  wallMs: number;
  cpuMs: number;
  /** Peak of the summed PSS of the process tree. */
  pssMb: number;
  /** Largest single process's peak RSS. */
  maxRssMb: number;
  /** Start to the first request. */
  firstRequestMs: number;
  /** Each main request, in order (the first asks for round 0, the last gets the answer). */
  requests: Request[];
  /** Compaction records in the agent's session file (replio only; 0 for others). */
  compactions: number;
}

/** Builds bench/peers/treemon.c into `dir` once. */
export async function buildTreemon(dir: string): Promise<string> {
  const binary = join(dir, "treemon");
  const { code, stderr } = await new Deno.Command("cc", {
    args: ["-O2", "-o", binary, join(PEERS, "treemon.c")],
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `Cannot build treemon: cc failed: ${new TextDecoder().decode(stderr)}: install gcc`,
    );
  }
  return binary;
}

/** The environment bench/peers/run.sh gives every agent (`env -i` plus these). */
function baseEnv(home: string): Record<string, string> {
  const nodeDir = Deno.env.get("PATH")?.split(":").find((dir) => {
    try {
      return Deno.statSync(join(dir, "node")).isFile;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
  }) ?? "/usr/bin";
  return {
    HOME: home,
    PATH: `${nodeDir}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    LANG: "C.UTF-8",
    TERM: "dumb",
    USER: "root",
    SHELL: "/bin/bash",
    NO_COLOR: "1",
    CI: "1",
  };
}

/** A fixed identity and date, so the fixture repository has the same commit id every run. */
const GIT_ENV = {
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
  GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
  GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
};

async function run(command: string, args: string[], cwd: string, env = {}): Promise<void> {
  const { code, stderr } = await new Deno.Command(command, { args, cwd, env, stderr: "piped" })
    .output();
  if (code !== 0) {
    throw new Error(`"${command} ${args.join(" ")}" failed: ${new TextDecoder().decode(stderr)}`);
  }
}

/** A fresh copy of the fixture at `dir`, a git repository with a fixed commit (as run.sh). */
async function newWorkdir(dir: string): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(dir, { recursive: true });
  await run("cp", ["-r", join(PEERS, "fixture") + "/.", dir], dir);
  await Deno.mkdir(join(dir, "out"), { recursive: true });
  await Deno.writeTextFile(join(dir, "out", ".gitkeep"), "");
  await run("git", ["init", "-q", "-b", "main"], dir, GIT_ENV);
  await run("git", ["add", "-A"], dir, GIT_ENV);
  await run("git", ["commit", "-q", "-m", "fixture"], dir, GIT_ENV);
}

/** The peers' mock model, started for `rounds` rounds; resolves once it listens. */
async function startMock(rounds: number, workdir: string, log: string, extra: string[]) {
  const child = new Deno.Command("node", {
    args: [
      join(PEERS, "mock-server.mjs"),
      "--rounds",
      String(rounds),
      "--workdir",
      workdir,
      "--log",
      log,
      ...extra,
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  // The mock says where it listens on its first stderr line.
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const port = await withDeadline(
    (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`The mock model exited before listening: ${seen}`);
        seen += value;
        const match = /http:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
        if (match) return Number(match[1]);
      }
    })(),
    "the mock model to listen",
  );
  // Keep draining its stderr so it never blocks on a full pipe.
  const drained = (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    async stop(): Promise<void> {
      child.kill("SIGTERM");
      await child.status;
      await drained;
    },
  };
}

/** The main requests of a mock log, in order. */
async function readRequests(log: string): Promise<Request[]> {
  const requests: Request[] = [];
  for (const line of (await Deno.readTextFile(log)).split("\n")) {
    if (!line) continue;
    const entry = JSON.parse(line);
    if (entry.ev === "req" && (entry.kind === "tool" || entry.kind === "final")) {
      requests.push({ k: entry.k, at: entry.at, bytes: entry.bytes });
    }
  }
  return requests;
}

async function countCompactions(workdir: string): Promise<number> {
  const dir = join(workdir, ".replio", "sessions");
  let count = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".jsonl")) continue;
      const text = await Deno.readTextFile(join(dir, entry.name));
      count += text.split('\n{"type":"compaction"').length - 1;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return count;
}

/** Where a session runs: the treemon binary, and folders for the work, homes and logs. */
export interface SessionPlace {
  treemon: string;
  root: string;
  /** Per-session limit, as run.sh's `--timeout`. */
  timeoutMs: number;
  /** Options of the mock beyond the script's (bench/peers/mock-server.mjs). */
  mockArgs: string[];
}

/** Runs one scripted session of `rounds` rounds with `agent`. */
export async function runSession(
  agent: Agent,
  rounds: number,
  place: SessionPlace,
): Promise<SessionRun> {
  const workdir = join(place.root, "work", agent.name);
  const home = join(place.root, "home", agent.name);
  const logDir = join(place.root, "logs", `${agent.name}-${rounds}-${crypto.randomUUID()}`);
  await Deno.mkdir(home, { recursive: true });
  await Deno.mkdir(logDir, { recursive: true });
  for (const [path, text] of Object.entries(agent.files ?? {})) {
    await Deno.mkdir(dirname(join(home, path)), { recursive: true });
    await Deno.writeTextFile(join(home, path), text);
  }
  await newWorkdir(workdir);
  const log = join(logDir, "mock.jsonl");
  const mock = await startMock(rounds, workdir, log, place.mockArgs);
  const treemonOut = join(logDir, "treemon.json");
  let stdout = "";
  let report: { honest?: boolean } = {};
  try {
    const output = await withDeadline(
      new Deno.Command(place.treemon, {
        args: [
          "-t",
          String(place.timeoutMs),
          "-o",
          treemonOut,
          "--",
          ...agent.command(`${mock.baseUrl}/v1`, rounds),
        ],
        cwd: workdir,
        env: { ...baseEnv(home), ...agent.env },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output(),
      `${agent.name} to finish ${rounds} rounds`,
      // treemon ends the run at the session's limit; this only guards against treemon hanging.
      place.timeoutMs + 60_000,
    );
    stdout = new TextDecoder().decode(output.stdout);
    report = await (await fetch(`${mock.baseUrl}/__bench/report`)).json();
  } finally {
    await mock.stop();
  }
  const tree = JSON.parse(await Deno.readTextFile(treemonOut));
  const requests = await readRequests(log);
  const honest = report.honest === true && tree.exit_code === 0 && stdout.includes("BENCH-DONE") &&
    !tree.timed_out;
  const problem = honest ? "" : `exit ${tree.exit_code}, mock report ${
    JSON.stringify(report)
      .slice(0, 300)
  }, stdout ${stdout.slice(0, 300)}`;
  const result: SessionRun = {
    agent: agent.name,
    rounds,
    honest,
    problem,
    wallMs: tree.wall_ms,
    cpuMs: tree.cpu_ms,
    pssMb: tree.tree_pss_peak_kb / 1024,
    maxRssMb: tree.maxrss_kb / 1024,
    firstRequestMs: (requests[0]?.at ?? NaN) - tree.start_epoch_ms,
    requests,
    compactions: await countCompactions(workdir),
  };
  await Deno.remove(logDir, { recursive: true });
  return result;
}
