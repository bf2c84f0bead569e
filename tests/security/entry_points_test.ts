/**
 * One invariant battery over every entry point (issue 22). For each way a tool call can run —
 * the REPL's confirm, `run`, `run --resume` after `approve`, serve turns, serve's pending API, the
 * chat-completions facade, `replio mcp` (stdio, `--http`, serve's `/mcp`), a delegate child, `replay --here` (recorded here, and
 * shipped by an untrusted folder), a user-plugin tool, an MCP-proxied tool — the same five cases
 * run: an ask-gated command, a protected-path write, a plan-mode write or command, a reused call
 * id, and an untrusted config that loosens. Each case is an attack (its marker file must stay
 * absent) and a control (the same entry point, set up so the call is really allowed, leaves the
 * marker): a control that fails means the attack proved nothing. Where a case cannot apply to an
 * entry point the table says why, and docs/security.md's threat table repeats it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { MockToolCall, MockTurn } from "../support/mock_model.ts";
import {
  call,
  chatCompletionsEntry,
  delegateEntry,
  type Drive,
  type EntryPoint,
  mcpHttpEntry,
  mcpServeEntry,
  replayEntry,
  replEntry,
  resumeEntry,
  runEntry,
  serveMcpEntry,
  servePendingEntry,
  serveTurnEntry,
  writeGlobalConfig,
} from "../support/entry_points.ts";
import { exists } from "../support/exists.ts";
import { type TempWorktree, tempWorktree } from "../support/worktree.ts";

type CaseName = "ask" | "protected" | "plan" | "reused id" | "untrusted config";

/** One run of a case: how it is driven, what the model asks for, and whether the call ran. */
interface Run {
  drive: Drive;
  turns: MockTurn[];
  ran(wt: TempWorktree): Promise<boolean>;
}

interface Case {
  name: CaseName;
  setup?(wt: TempWorktree): Promise<void>;
  attack: Run;
  control: Run;
}

const done: MockTurn = { text: "done" };
const marker = (name: string) => (wt: TempWorktree) => exists(join(wt.path, name));
const PLANTED = "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = /tmp/replio-planted-hook\n";

async function gitInit(wt: TempWorktree): Promise<void> {
  const { code } = await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output();
  assert.equal(code, 0);
}

const CASES: Case[] = [
  {
    // Headless nothing answers it; in the REPL the person says no. --yes / y is the control.
    name: "ask",
    attack: {
      drive: {},
      turns: [{ toolCalls: [call("run_command", { command: "touch ask.marker" })] }, done],
      ran: marker("ask.marker"),
    },
    control: {
      drive: { yes: true },
      turns: [{ toolCalls: [call("run_command", { command: "touch ask.marker" })] }, done],
      ran: marker("ask.marker"),
    },
  },
  {
    // A blanket answer (--yes, or "a" in the REPL) never writes .git/config.
    name: "protected",
    setup: gitInit,
    attack: {
      drive: { always: true },
      turns: [{ toolCalls: [call("file_write", { path: ".git/config", content: PLANTED })] }, done],
      ran: async (wt) => (await wt.read(".git/config")).includes("fsmonitor"),
    },
    control: {
      drive: { yes: true },
      turns: [{ toolCalls: [call("file_write", { path: "notes.marker", content: "x" })] }, done],
      ran: marker("notes.marker"),
    },
  },
  {
    // Plan mode: no write and no command, even with --yes; the default mode is the control.
    name: "plan",
    attack: {
      drive: { mode: "plan", yes: true },
      turns: [
        { toolCalls: [call("file_write", { path: "plan.marker", content: "x" })] },
        { toolCalls: [call("run_command", { command: "touch plan-run.marker" })] },
        done,
      ],
      ran: async (wt) =>
        await exists(join(wt.path, "plan.marker")) ||
        await exists(join(wt.path, "plan-run.marker")),
    },
    control: {
      drive: { yes: true },
      turns: [
        { toolCalls: [call("file_write", { path: "plan.marker", content: "x" })] },
        { toolCalls: [call("run_command", { command: "touch plan-run.marker" })] },
        done,
      ],
      ran: async (wt) =>
        await exists(join(wt.path, "plan.marker")) &&
        await exists(join(wt.path, "plan-run.marker")),
    },
  },
  {
    // The model reuses an id it already used (and, after an approval, the approved one's).
    name: "reused id",
    attack: {
      drive: {},
      turns: [
        { toolCalls: [{ ...call("file_read", { path: "a.txt" }), id: "call_1" }] },
        {
          toolCalls: [{ ...call("run_command", { command: "touch reused.marker" }), id: "call_1" }],
        },
        done,
      ],
      ran: marker("reused.marker"),
    },
    control: {
      drive: { yes: true },
      turns: [
        { toolCalls: [{ ...call("file_read", { path: "a.txt" }), id: "call_1" }] },
        {
          toolCalls: [{ ...call("run_command", { command: "touch reused.marker" }), id: "call_1" }],
        },
        done,
      ],
      ran: marker("reused.marker"),
    },
  },
  {
    // The folder's own config allows commands and edits; it loads only when trusted.
    name: "untrusted config",
    setup: (wt) =>
      wt.write(
        ".replio/config.yaml",
        "tool_permission:\n  bash: allow\n  edit: allow\n  mcp: allow\n",
      ),
    attack: {
      drive: { trust: false },
      turns: [{ toolCalls: [call("run_command", { command: "touch loosen.marker" })] }, done],
      ran: marker("loosen.marker"),
    },
    control: {
      drive: { trust: true },
      turns: [{ toolCalls: [call("run_command", { command: "touch loosen.marker" })] }, done],
      ran: marker("loosen.marker"),
    },
  },
];

// ---- entry points whose tools are not the bundled ones ----

/** A user plugin (the user's own global config) with a command-like and a file-writing tool. */
const PLUGIN = `/*! replio-plugin {"permissions": {"write": ["."]}} */
export const plugin = {
  name: "battery",
  tools: [
    {
      spec: {
        name: "plug_touch",
        description: "Create an empty file in the worktree",
        parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        category: "exec",
        permission: "bash",
        keyArg: "name",
      },
      handler: ({ name }, ctx) => { Deno.writeTextFileSync(ctx.worktree + "/" + name, "x"); return "ok"; },
    },
    {
      spec: {
        name: "plug_write",
        description: "Write a file in the worktree",
        parameters: {
          type: "object",
          properties: { path: { type: "string" }, content: { type: "string" } },
          required: ["path", "content"],
        },
        category: "write",
        permission: "edit",
        pathArg: "path",
      },
      handler: ({ path, content }, ctx) => {
        Deno.writeTextFileSync(ctx.worktree + "/" + path, content);
        return "written";
      },
    },
  ],
};
`;

/** The battery's MCP server (the user's own global config): the same two tools, in its cwd. */
const MCP_SERVER = new URL("../support/mcp_battery_server.ts", import.meta.url).pathname;

/** `touch X` and file_write become the entry's own tools. */
function mapCalls(turns: MockTurn[], names: { touch: string; write: string }): MockTurn[] {
  const map = (c: MockToolCall): MockToolCall => {
    const args = c.arguments as Record<string, unknown>;
    if (c.name === "run_command") {
      const name = String(args.command).replace(/^touch /, "");
      return { ...c, name: names.touch, arguments: { name } };
    }
    if (c.name === "file_write") return { ...c, name: names.write };
    return c;
  };
  return turns.map((turn) =>
    turn.toolCalls ? { ...turn, toolCalls: turn.toolCalls.map(map) } : turn
  );
}

const pluginEntry: EntryPoint = {
  name: "a user-plugin tool (replio run)",
  async run(wt, turns, drive) {
    const file = join(wt.path, ".xdg-plugins", "battery.js");
    await wt.write(".xdg-plugins/battery.js", PLUGIN);
    await writeGlobalConfig(wt, `plugins: [${JSON.stringify(file)}]\n`);
    await runEntry.run(wt, mapCalls(turns, { touch: "plug_touch", write: "plug_write" }), drive);
  },
};

function mcpToolEntry(mode: string | undefined): EntryPoint {
  return {
    name: `an MCP-proxied tool (replio run, mode ${mode ?? "default"})`,
    async run(wt, turns, drive) {
      await writeGlobalConfig(
        wt,
        `mcp_servers:\n  t:\n    command: ${JSON.stringify(Deno.execPath())}\n    args: ` +
          `[run, -A, ${JSON.stringify(MCP_SERVER)}]\nmcp_startup_wait: 60\n` +
          // A busy machine may take longer than the default 10 s to start the server.
          "mcp_connect_timeout: 60\n",
      );
      const names = { touch: "mcp__t__touch", write: "mcp__t__write" };
      // The case's own mode wins (plan); otherwise this entry's.
      await runEntry.run(wt, mapCalls(turns, names), { ...drive, mode: drive.mode ?? mode });
    },
  };
}

/** Entry points, and the cases that cannot apply to each, with the reason. */
const ENTRIES: {
  entry: EntryPoint;
  notApplicable?: Partial<Record<CaseName, string>>;
  /** The cases this entry adds to the battery, when it repeats another entry in one respect. */
  only?: CaseName[];
}[] = [
  { entry: replEntry },
  { entry: runEntry },
  { entry: resumeEntry },
  { entry: serveTurnEntry },
  { entry: servePendingEntry },
  { entry: chatCompletionsEntry },
  ...[mcpServeEntry, mcpHttpEntry, serveMcpEntry].map((entry) => ({
    entry,
    notApplicable: {
      "reused id": "an MCP client's calls carry no earlier answer: each is judged alone",
    },
  })),
  { entry: delegateEntry },
  { entry: replayEntry(false) },
  { entry: replayEntry(true) },
  { entry: pluginEntry },
  {
    entry: mcpToolEntry(undefined),
    notApplicable: {
      protected: "replio cannot see what path an MCP server writes: the server is the user's " +
        "own (global config or a trusted folder), and every call is gated by tool_permission.mcp",
    },
  },
  // Every other mode: an MCP tool still asks (plan mode is the plan case above).
  { entry: mcpToolEntry("accept-edits"), only: ["ask"] },
  { entry: mcpToolEntry("sandboxed"), only: ["ask"] },
];

/** Entry points whose controls cannot pass by design, and which entry's control stands in. */
const NO_CONTROL: Record<string, string> = {
  [replayEntry(true).name]: "an untrusted recording grants nothing: " +
    "the trusted replay entry's controls show the same calls run",
};

for (const { entry, notApplicable = {}, only } of ENTRIES) {
  for (const testCase of CASES) {
    if (notApplicable[testCase.name] || (only && !only.includes(testCase.name))) continue;
    Deno.test(`${entry.name}: ${testCase.name} — the attack leaves no marker`, async () => {
      await using wt = await tempWorktree({ "a.txt": "a\n" });
      await testCase.setup?.(wt);
      await entry.run(wt, testCase.attack.turns, testCase.attack.drive);
      assert.equal(await testCase.attack.ran(wt), false, `${entry.name}: ${testCase.name} ran`);
    });
    if (NO_CONTROL[entry.name]) continue;
    Deno.test(`${entry.name}: ${testCase.name} — control: allowed, the same call runs`, async () => {
      await using wt = await tempWorktree({ "a.txt": "a\n" });
      await testCase.setup?.(wt);
      await entry.run(wt, testCase.control.turns, testCase.control.drive);
      assert.ok(
        await testCase.control.ran(wt),
        `${entry.name}: ${testCase.name} control did not run`,
      );
    });
  }
}
