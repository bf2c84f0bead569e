/**
 * Every way a tool call can run, as a driver the security battery calls with the same script:
 * the model's turns (or, for `replio mcp`, the calls a client makes) and how the run is set up
 * (`--yes` or a person's yes, a mode, folder trust). Each driver runs real processes against the
 * mock model on 127.0.0.1 and returns when the turn (or call) is over; the battery then looks at
 * marker files. Used by tests/security/entry_points_test.ts.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadMcpSdk } from "../../src/mcp/mod.ts";
import { type MockToolCall, type MockTurn, startMockModel } from "./mock_model.ts";
import { httpClient, startMcpHttp } from "./mcp_http_replio.ts";
import { childEnv, MAIN, runReplio } from "./replio_process.ts";
import { post, serve, type Served } from "./serve_process.ts";
import { waitUntil } from "./deadline.ts";
import { TmuxRepl } from "./tmux_repl.ts";
import type { TempWorktree } from "./worktree.ts";

/** How one run is set up. */
export interface Drive {
  /** Headless: `--yes`. In the REPL: the person answers yes at each confirm. */
  yes?: boolean | undefined;
  /** In the REPL: answer `a` (always) where a rule is offered; headless it is `--yes`. */
  always?: boolean | undefined;
  mode?: string | undefined;
  /**
   * `--trust`: the folder's own settings load for this run. `false` says the case is about an
   * untrusted folder (a replay of a recording made here is otherwise replayed trusted).
   */
  trust?: boolean | undefined;
}

/** One way a call runs. `run` plays `turns` through it; it throws only when the driver failed. */
export interface EntryPoint {
  name: string;
  run(wt: TempWorktree, turns: MockTurn[], drive: Drive): Promise<void>;
}

function flags(drive: Drive): string[] {
  return [
    ...(drive.yes || drive.always ? ["--yes"] : []),
    ...(drive.mode ? ["--mode", drive.mode] : []),
    ...(drive.trust ? ["--trust"] : []),
  ];
}

function modelArgs(baseUrl: string): string[] {
  return ["--base-url", baseUrl, "--model", "m"];
}

/** Runs `replio run` and checks it ended as a run does (0, 1 or 4), not as a crash. */
async function replio(wt: TempWorktree, args: string[]): Promise<{ stdout: string }> {
  const ran = await runReplio(args, { cwd: wt.path });
  assert.ok(
    [0, 1, 3, 4].includes(ran.code),
    `replio ${args.join(" ")}: ${ran.code}\n${ran.stderr}`,
  );
  return ran;
}

/** The model's turns with the first call's id set to `id` (a reused id after an approval). */
function withFirstId(turns: MockTurn[], id: string): MockTurn[] {
  let done = false;
  return turns.map((turn) => {
    if (done || !turn.toolCalls?.length) return turn;
    done = true;
    const [first, ...rest] = turn.toolCalls;
    return { ...turn, toolCalls: [{ ...first!, id }, ...rest] };
  });
}

/** A call outside the worktree: it asks in every mode, so a `--park` run stops at it. */
const PARK_TURN: MockTurn = {
  toolCalls: [{ id: "call_1", name: "file_read", arguments: { path: "/etc/hostname" } }],
};

/** `replio run PROMPT`. */
export const runEntry: EntryPoint = {
  name: "replio run",
  async run(wt, turns, drive) {
    await using mock = startMockModel(turns);
    await replio(wt, ["run", "go", ...modelArgs(mock.baseUrl), ...flags(drive)]);
  },
};

/** `run --park`, `replio approve`, then `run --resume`: the battery plays after the approval. */
export const resumeEntry: EntryPoint = {
  name: "replio run --resume after approve",
  async run(wt, turns, drive) {
    // Every battery call reuses the approved call's id: the approval must not cover it.
    await using mock = startMockModel([PARK_TURN, ...withFirstId(turns, "call_1")]);
    const trust = drive.trust ? ["--trust"] : [];
    const parked = await runReplio(
      ["run", "go", "--park", "--output", "json", ...modelArgs(mock.baseUrl), ...trust],
      { cwd: wt.path },
    );
    assert.equal(parked.code, 4, parked.stderr);
    const session = JSON.parse(parked.stdout).session as string;
    const approved = await runReplio(["approve", session], { cwd: wt.path });
    assert.equal(approved.code, 0, approved.stderr);
    await replio(wt, ["run", "--resume", session, ...modelArgs(mock.baseUrl), ...flags(drive)]);
  },
};

/** A running `replio serve` on a free port, with the battery's flags. */
function startServe(
  wt: TempWorktree,
  baseUrl: string,
  drive: Drive,
  { serverMode = false } = {},
): Promise<Served> {
  // A turn names its mode in the request; an MCP client cannot, so /mcp takes the server's.
  const { mode: _mode, ...serverDrive } = drive;
  return serve(wt.path, { baseUrl }, { args: flags(serverMode ? drive : serverDrive) });
}

/** POSTs `body` and checks the answer is 200; returns its JSON. */
async function postOk(served: Served, path: string, body: unknown): Promise<unknown> {
  const answer = await post(served, path, body);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** `POST /v1/turns` on `replio serve`. */
export const serveTurnEntry: EntryPoint = {
  name: "replio serve POST /v1/turns",
  async run(wt, turns, drive) {
    await using mock = startMockModel(turns);
    await using served = await startServe(wt, mock.baseUrl, drive);
    await postOk(served, "/v1/turns", {
      prompt: "go",
      ...(drive.mode ? { mode: drive.mode } : {}),
    });
  },
};

/** serve's pending API: a parked turn, `POST …/pending/CALL` approve, then a resume turn. */
export const servePendingEntry: EntryPoint = {
  name: "replio serve pending API",
  async run(wt, turns, drive) {
    await using mock = startMockModel([PARK_TURN, ...withFirstId(turns, "call_1")]);
    await using served = await startServe(wt, mock.baseUrl, drive);
    const parked = await postOk(served, "/v1/turns", { prompt: "go", park: true });
    const session = (parked as { session: string }).session;
    await postOk(served, `/v1/sessions/${session}/pending/call_1`, { decision: "approve" });
    await postOk(served, "/v1/turns", {
      session,
      resume: true,
      ...(drive.mode ? { mode: drive.mode } : {}),
    });
  },
};

/** The OpenAI-compatible facade: `POST /v1/chat/completions` with model `replio/<mode>`. */
export const chatCompletionsEntry: EntryPoint = {
  name: "replio serve /v1/chat/completions",
  async run(wt, turns, drive) {
    await using mock = startMockModel(turns);
    await using served = await startServe(wt, mock.baseUrl, drive);
    await postOk(served, "/v1/chat/completions", {
      model: `replio/${drive.mode ?? "default"}`,
      messages: [{ role: "user", content: "go" }],
    });
  },
};

/** A delegate child: the parent's model delegates, the child's turns are the battery. */
export const delegateEntry: EntryPoint = {
  name: "delegate (a sub-agent)",
  async run(wt, turns, drive) {
    await using mock = startMockModel([
      { toolCalls: [{ name: "delegate", arguments: { agent_type: "general", task: "go" } }] },
      ...turns,
      { text: "the parent is done" },
    ]);
    await replio(wt, ["run", "go", ...modelArgs(mock.baseUrl), ...flags(drive)]);
  },
};

/**
 * `replio replay --here` of a recording this entry makes first (with the drive's `--yes`, in
 * the default mode): markers the recording left are removed before the replay, which then runs
 * in the drive's mode and trust. `untrustedRecording`: the recording is made in a trusted run, and
 * replayed as if the folder (which ships it) were not trusted.
 */
export function replayEntry(untrustedRecording: boolean): EntryPoint {
  return {
    name: untrustedRecording
      ? "replio replay --here (a recording shipped by an untrusted folder)"
      : "replio replay --here (a recording made here)",
    async run(wt, turns, drive) {
      await using mock = startMockModel(turns);
      // A recording made here was made, and is replayed, by a user who trusts the folder.
      const trusted = drive.trust ?? true;
      const recordTrust = untrustedRecording || trusted;
      const recorded = await replio(wt, [
        "run",
        "go",
        "--output",
        "json",
        ...modelArgs(mock.baseUrl),
        ...flags({ yes: drive.yes || drive.always, trust: recordTrust }),
      ]);
      const session = JSON.parse(recorded.stdout).session as string;
      await undoEffects(wt);
      const replayTrust = untrustedRecording ? false : trusted;
      const replayed = await runReplio(
        ["replay", session, "--here", ...flags({ mode: drive.mode, trust: replayTrust })],
        { cwd: wt.path },
      );
      assert.ok([0, 1].includes(replayed.code), replayed.stderr);
    },
  };
}

/**
 * Removes what a recording's calls left: every `*.marker` file and a `.git/config` that is not
 * the one `git init` wrote, so only the replay can leave them.
 */
export async function undoEffects(wt: TempWorktree): Promise<void> {
  for await (const entry of Deno.readDir(wt.path)) {
    if (entry.name.endsWith(".marker")) await Deno.remove(join(wt.path, entry.name));
  }
  const config = join(wt.path, ".git", "config");
  try {
    if ((await Deno.readTextFile(config)).includes("fsmonitor")) {
      await Deno.writeTextFile(config, "[core]\n\trepositoryformatversion = 0\n");
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** `replio mcp` over stdio: an MCP client makes each call of the turns itself (no model). */
export const mcpServeEntry: EntryPoint = {
  name: "replio mcp (stdio)",
  async run(wt, turns, drive) {
    const { Client, StdioClientTransport } = await loadMcpSdk();
    const client = new Client({ name: "battery", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: Deno.execPath(),
        args: ["run", "--no-prompt", "-A", MAIN, "mcp", ...flags(drive)],
        cwd: wt.path,
        env: childEnv(wt.path),
        stderr: "pipe",
      }),
    );
    await callEach(client, turns);
  },
};

/** `replio mcp --http`: the SDK's Streamable HTTP client makes the calls. */
export const mcpHttpEntry: EntryPoint = {
  name: "replio mcp --http",
  async run(wt, turns, drive) {
    await using server = await startMcpHttp(wt.path, flags(drive));
    await callEach(await httpClient(server.url), turns);
  },
};

/** `/mcp` of `replio serve`: the same server mounted beside the API, with serve's flags. */
export const serveMcpEntry: EntryPoint = {
  name: "replio serve /mcp",
  async run(wt, turns, drive) {
    await using mock = startMockModel(turns);
    await using served = await startServe(wt, mock.baseUrl, drive, { serverMode: true });
    await callEach(await httpClient(`${served.base}/mcp`), turns);
  },
};

/** Makes each of the turns' tool calls as an MCP client's `tools/call`, then closes the client. */
async function callEach(
  client: {
    callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
    close(): Promise<void>;
  },
  turns: MockTurn[],
): Promise<void> {
  try {
    for (const call of turns.flatMap((turn) => turn.toolCalls ?? [])) {
      await client.callTool({
        name: call.name,
        arguments: call.arguments as Record<string, unknown>,
      });
    }
  } finally {
    await client.close();
  }
}

/** The screen ends at an empty prompt (`>`, `plan >`): the turn is over. */
const AT_PROMPT = /(^|\n)([\w-]+ )?>\s*$/;

/** The REPL in tmux: a person types the prompt and answers each confirm as the drive says. */
export const replEntry: EntryPoint = {
  name: "the REPL (a person at the confirm prompt)",
  async run(wt, turns, drive) {
    await using mock = startMockModel(turns);
    const args = [...modelArgs(mock.baseUrl), ...flags({ mode: drive.mode, trust: drive.trust })];
    await using repl = await TmuxRepl.start(wt.path, args, {
      noColor: true,
      ready: "",
      waitForPrompt: false,
    });
    // An untrusted folder with settings asks first; the person keeps it untrusted.
    const first = await repl.waitFor(/Trust this folder\?|(^|\n)([\w-]+ )?>\s*$/, "a prompt");
    if (first.includes("Trust this folder?")) {
      await repl.enter("n");
      await repl.waitForPrompt();
    }
    await repl.enter("go");
    let answered = 0;
    for (;;) {
      let screen = "";
      await waitUntil(async () => {
        screen = await repl.screen();
        // Over once the model has answered every request of the script and the prompt is back.
        const over = mock.requests.length >= turns.length && AT_PROMPT.test(screen);
        return over || (screen.match(/\[y\/N\]/g) ?? []).length > answered;
      }, `confirm prompt ${answered + 1} or the end of the turn`);
      const prompts = screen.match(/[^\n]*\[y\/N\][^\n]*/g) ?? [];
      if (prompts.length <= answered) break;
      const prompt = prompts[answered]!;
      answered++;
      const key = !drive.yes && !drive.always
        ? "n"
        // No blanket answer where no rule is offered: the person says no.
        : drive.always
        ? (prompt.includes("a always") ? "a" : "n")
        : "y";
      await repl.enter(key);
    }
    await repl.enter("/exit");
    await repl.waitForExit();
  },
};

/** Writes `text` as the user's own global config for both the CLI and the tmux helpers. */
export async function writeGlobalConfig(wt: TempWorktree, text: string): Promise<void> {
  for (const folder of [".xdg", ".test-xdg"]) await wt.write(`${folder}/replio/config.yaml`, text);
}

/** A model call, shorter to write. */
export function call(name: string, args: Record<string, unknown>): MockToolCall {
  return { name, arguments: args };
}
