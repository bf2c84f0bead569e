/**
 * A worktree set up so that replio starts every kind of process it can, for
 * tests/no_orphans_test.ts: the user's global config (in the test's private XDG_CONFIG_HOME)
 * names an MCP stdio server that ignores SIGTERM and starts a child of its own
 * (mcp_stubborn_server.ts), a user plugin (a Worker, inside replio) and lets commands run; the
 * scripted mock model asks for a command that ends (so a spare shell is started for the next)
 * and, where a script says so, for a long `sleep` with a duration no other test uses. replio's
 * environment carries a mark of this scene's own ({@link MARK_VARIABLE}), which every process it
 * starts inherits.
 * @module
 */
import { join } from "node:path";
import { SPARE_SCRIPT } from "../../src/plugins/spare_shell.ts";
import { waitUntil } from "./deadline.ts";
import { exists } from "./exists.ts";
import { type MockModel, type MockTurn, startMockModel } from "./mock_model.ts";
import { pluginCacheEnv } from "./plugin_cache_env.ts";
import {
  killAll,
  type LiveProcess,
  MARK_VARIABLE,
  markedProcesses,
  type NoneMarkedOptions,
  type ProcessMark,
  waitForNoneMarked,
} from "./process_census.ts";
import { type TempWorktree, tempWorktree } from "./worktree.ts";

const STUBBORN_SERVER = new URL("./mcp_stubborn_server.ts", import.meta.url).pathname;
const ECHO_SERVER = new URL("./mcp_echo_server.ts", import.meta.url).pathname;

/** The answer that ends a turn; the REPL test waits for it on the screen. */
export const DONE_TEXT = "all commands are done";

/** A plugin whose one tool answers at once; calling it makes sure its Worker runs. */
const GREET_PLUGIN = `export const plugin = {
  name: "greet",
  tools: [{
    spec: {
      name: "greet",
      description: "Greets",
      parameters: { type: "object", properties: {} },
      category: "read",
      permission: "read",
    },
    handler: () => "hello",
  }],
};
`;

/** One front-end's run: its worktree, model, environment and what marks its processes. */
export interface OrphanScene extends AsyncDisposable {
  wt: TempWorktree;
  mock: MockModel;
  /** `--base-url` and `--model` for the mock. */
  modelArgs: string[];
  /** replio's extra environment: the mark and a private plugin cache. */
  env: Record<string, string>;
  /** What marks this scene's processes: the mark, the MCP server's word, the long sleep. */
  census: ProcessMark;
  /** The long command the model asks for: a `sleep` no other test runs. */
  longCommand: string;
}

/** Options for {@link orphanScene}. */
export interface OrphanSceneOptions {
  /** The model's script, given the turn that asks for the long command. */
  script: (long: MockTurn) => MockTurn[];
  /** `sandbox.mode`; default replio's own (`auto`: bubblewrap where it runs). */
  sandbox?: "off";
  /**
   * A second MCP server that never gets ready: a front-end that waits for its servers is still
   * starting up, with the stubborn one running, until the test stops it.
   */
  slowServer?: boolean;
}

/**
 * The model's first turn: a command that ends (its end starts a spare shell for the next
 * command) and a call of the plugin's tool.
 */
export const QUICK_CALLS: MockTurn = {
  toolCalls: [
    { name: "run_command", arguments: { command: "echo quick" } },
    { name: "greet", arguments: {} },
  ],
};

/** A worktree whose global config starts the stubborn MCP server and the plugin. */
export async function orphanScene(options: OrphanSceneOptions): Promise<OrphanScene> {
  const wt = await tempWorktree({ "README.md": "# Orphans\n", ".mcp/.keep": "" });
  // A sandbox binds a missing .git or .replio as a stand-in, and such a sandbox gets no spare
  // shell: with both present, every command leaves one waiting for the next.
  await Deno.mkdir(join(wt.path, ".replio"));
  const init = await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output();
  if (!init.success) throw new Error(`git init failed: ${new TextDecoder().decode(init.stderr)}`);
  const word = `orphan-${crypto.randomUUID()}`;
  // A duration as unique as a name: the sleep's own argv says which test started it.
  const seconds = `3600.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
  const longCommand = `sleep ${seconds}`;
  const config = {
    mcp_servers: {
      stubborn: {
        command: Deno.execPath(),
        args: ["run", "-A", STUBBORN_SERVER, join(wt.path, ".mcp"), word],
      },
      ...(options.slowServer
        ? {
          slow: {
            command: Deno.execPath(),
            args: ["run", "-A", ECHO_SERVER, "--start-when", join(wt.path, "never"), word],
          },
        }
        : {}),
    },
    // Front-ends that wait for servers wait until it is up: its pid files are written by then.
    // With a server that never gets ready, start-up lasts until the test ends it.
    mcp_startup_wait: options.slowServer ? 3600 : 60,
    plugins: [join(wt.path, "greet.js")],
    tool_permission: { bash: "allow" },
    ...(options.sandbox ? { sandbox: { mode: options.sandbox } } : {}),
  };
  await wt.write("greet.js", GREET_PLUGIN);
  // The CLI helpers use .xdg, the tmux helper .test-xdg.
  for (const folder of [".xdg", ".test-xdg"]) {
    await wt.write(`${folder}/replio/config.yaml`, JSON.stringify(config, null, 2));
  }
  const mock = startMockModel(options.script({
    toolCalls: [{ name: "run_command", arguments: { command: longCommand } }],
  }));
  const mark = crypto.randomUUID();
  const census: ProcessMark = { mark, words: [word, seconds] };
  return {
    wt,
    mock,
    modelArgs: ["--base-url", mock.baseUrl, "--model", "mock-model"],
    env: { [MARK_VARIABLE]: mark, ...pluginCacheEnv(join(wt.path, ".cache")) },
    census,
    longCommand,
    async [Symbol.asyncDispose]() {
      // A failed test leaves nothing running either.
      killAll(await markedProcesses({ ...census, pids: await mcpPids(wt) }));
      await mock.close();
      await wt[Symbol.asyncDispose]();
    },
  };
}

/** What {@link awaitStarted} waits for, besides the MCP server and its child. */
export interface Expected {
  /** A spare shell waiting for the next command. */
  spare?: boolean;
  /** The long command running. */
  long?: boolean;
}

/**
 * Waits until the census shows the MCP server and its child (by the pids they wrote) and what
 * `expected` names, each found by its mark: proof that the mark reaches every kind of process,
 * so that the check after exit would see them.
 */
export async function awaitStarted(scene: OrphanScene, expected: Expected): Promise<void> {
  const wanted = [
    "the MCP server",
    "its child",
    ...(expected.spare ? ["a spare shell"] : []),
    ...(expected.long ? [`the command "${scene.longCommand}"`] : []),
  ];
  await waitUntil(async () => {
    const pids = await mcpPids(scene.wt);
    if (pids.length < 2) return false;
    const seen = await markedProcesses({ mark: scene.census.mark });
    const [server, child] = pids;
    return seen.some((p) => p.pid === server) && seen.some((p) => p.pid === child) &&
      (!expected.spare || seen.some(isSpare)) &&
      (!expected.long || seen.some((p) => p.argv.join(" ") === scene.longCommand));
  }, `${wanted.join(", ")}, each carrying replio's mark`);
}

/**
 * Resolves once nothing this scene's replio started runs any more (by mark, by argv and by the
 * MCP server's pid files); fails with each survivor's pid and command line.
 */
export async function awaitNoneLeft(
  scene: OrphanScene,
  frontEnd: string,
  options: NoneMarkedOptions = {},
): Promise<void> {
  const pids = await mcpPids(scene.wt);
  await waitForNoneMarked({ ...scene.census, pids }, `processes ${frontEnd} started`, options);
}

/** A spare shell: its argv holds the script that waits for a command on stdin. */
function isSpare(p: LiveProcess): boolean {
  return p.argv.includes(SPARE_SCRIPT);
}

/** The MCP server's pid and its child's, once it has written both; else fewer. */
async function mcpPids(wt: TempWorktree): Promise<number[]> {
  const pids: number[] = [];
  for (const name of ["server.pid", "child.pid"]) {
    const file = join(wt.path, ".mcp", name);
    // The server writes each file whole (a rename), so one that exists holds the pid.
    if (await exists(file)) pids.push(Number((await Deno.readTextFile(file)).trim()));
  }
  return pids;
}
