/**
 * The OS sandbox for commands (docs/sandbox.md): run_command and code_* inside bubblewrap, each
 * attack reproduced with a marker and shown to work with `sandbox.mode: off` (the control), the
 * isolation recorded per call, and the fallback on a machine without bwrap.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../src/config/mod.ts";
import { createRegistry } from "../src/plugins/mod.ts";
import { bwrapUsable } from "../src/plugins/sandbox_bwrap.ts";
import {
  createToolContext,
  invokeTool,
  type PermissionRecord,
  ToolPolicy,
} from "../src/tools/mod.ts";
import { runReplio } from "./support/replio_process.ts";
import { invokeInWorktree, RecordingSink, tempWorktree } from "./support/worktree.ts";
import { exists } from "./support/exists.ts";

const BWRAP = "bwrap(net=off, write=worktree)";
const ignore = !bwrapUsable();
const OFF = { "sandbox.mode": "off" };

async function gitWorktree(files: Record<string, string> = {}) {
  const wt = await tempWorktree(files);
  const init = await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output();
  assert.ok(init.success, "git init");
  return wt;
}

Deno.test({
  name: "bwrap'd run_command cannot write outside the worktree; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    await using outside = await tempWorktree();
    // Outside /tmp too, where the sandbox's private /tmp cannot be what stops it.
    const marker = join(Deno.cwd(), `.sandbox_marker_${crypto.randomUUID()}`);
    try {
      const command = `echo pwned > ${outside.path}/marker; echo pwned > ${marker}`;
      const audit: PermissionRecord[] = [];
      const boxed = await invokeInWorktree(wt, "run_command", { command }, { audit });
      assert.equal(await exists(join(outside.path, "marker")), false);
      assert.equal(await exists(marker), false);
      assert.match(boxed.output, /^exit 1\n/);
      assert.match(boxed.output, /\[sandbox\] the sandbox may have stopped it: writes outside/);
      assert.equal(boxed.isolation, BWRAP);
      assert.equal(audit[0]?.isolation, BWRAP);

      const control = await invokeInWorktree(wt, "run_command", { command }, { config: OFF });
      assert.equal(control.output, "exit 0");
      assert.equal(control.isolation, "none");
      assert.equal(await exists(marker), true, "the control writes the marker");
    } finally {
      await Deno.remove(marker).catch(() => {});
    }
  },
});

Deno.test({
  name: "bwrap'd run_command cannot read replio's API key from /proc; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    const key = `sk-proc-${crypto.randomUUID()}`;
    // Every process's start-up environment, replio's own among them without a PID namespace.
    const read = [
      "tool",
      "run_command",
      JSON.stringify({
        command: "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ^OPENAI_API_KEY=",
      }),
      "--yes",
    ];
    const env = { OPENAI_API_KEY: key };
    const boxed = await runReplio(read, { cwd: wt.path, env });
    assert.ok(!boxed.stdout.includes(key), boxed.stdout);
    assert.match(boxed.stdout, /^0$/m, "no process in the sandbox holds the key");

    await wt.write(".xdg/replio/config.yaml", 'sandbox:\n  mode: "off"\n');
    const control = await runReplio(read, { cwd: wt.path, env });
    assert.match(
      control.stdout,
      /^[1-9]\d*$/m,
      `the control finds replio's entry: ${control.stdout}`,
    );
  },
});

Deno.test({
  name: "bwrap'd run_command has a private /tmp: the host's files there are unseen, its own vanish",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    const id = crypto.randomUUID();
    const hostFile = `/tmp/replio_host_secret_${id}`;
    const written = `/tmp/replio_sandbox_wrote_${id}`;
    await Deno.writeTextFile(hostFile, "host secret\n");
    try {
      const command = `cat ${hostFile}; echo left > ${written}; cat ${written}`;
      const boxed = await invokeInWorktree(wt, "run_command", { command });
      assert.doesNotMatch(boxed.output, /host secret/);
      assert.match(boxed.output, /No such file or directory/);
      // Its own /tmp works inside, and is gone with the sandbox.
      assert.match(boxed.output, /^left$/m);
      assert.equal(await exists(written), false);

      const control = await invokeInWorktree(wt, "run_command", { command }, { config: OFF });
      assert.match(control.output, /host secret/, "the control reads the host's /tmp");
      assert.equal(await exists(written), true, "the control writes to the host's /tmp");
    } finally {
      await Deno.remove(hostFile).catch(() => {});
      await Deno.remove(written).catch(() => {});
    }
  },
});

Deno.test({
  name: "bwrap'd run_command cannot write .git/config or .replio; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await gitWorktree({ ".replio/config.yaml": "model: m\n" });
    const command = "echo '[alias] x = !touch pwned' >> .git/config; echo y >> .replio/config.yaml";
    const before = await wt.read(".git/config");
    const boxed = await invokeInWorktree(wt, "run_command", { command });
    assert.equal(await wt.read(".git/config"), before);
    assert.equal(await wt.read(".replio/config.yaml"), "model: m\n");
    assert.match(boxed.output, /\.git\/config: Read-only file system/);

    await invokeInWorktree(wt, "run_command", { command }, { config: OFF });
    assert.match(await wt.read(".git/config"), /pwned/, "the control changes .git/config");
  },
});

Deno.test({
  name: "bwrap'd run_command cannot reach the host's 127.0.0.1 unless sandbox.network is set",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    let hits = 0;
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
      hits++;
      return new Response("secret-from-host\n");
    });
    const command = `exec 3<>/dev/tcp/127.0.0.1/${server.addr.port} && ` +
      `printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const boxed = await invokeInWorktree(wt, "run_command", { command });
    assert.equal(hits, 0);
    assert.match(boxed.output, /Connection refused/);
    assert.match(boxed.output, /\[sandbox\] the sandbox may have stopped it: the network is off/);

    const allowed = await invokeInWorktree(wt, "run_command", { command }, {
      config: { "sandbox.network": true },
    });
    assert.equal(hits, 1, "with sandbox.network the same command reaches the host");
    assert.match(allowed.output, /secret-from-host/);
    assert.equal(allowed.isolation, "bwrap(net=on, write=worktree)");
  },
});

Deno.test({
  name: "bwrap'd commands still build and test in the worktree (run_command, code_test)",
  ignore,
  async fn() {
    await using wt = await gitWorktree({
      "build.sh": "mkdir -p out && echo built > out/app && git status --short\n",
      "deno.json": "{}\n",
      "app_test.ts": 'Deno.test("adds", () => { if (1 + 1 !== 2) throw new Error("math"); });\n',
    });
    const built = await invokeInWorktree(wt, "run_command", { command: "bash build.sh" });
    assert.match(built.output, /^exit 0\n/);
    assert.equal(await wt.read("out/app"), "built\n");
    const tested = await invokeInWorktree(wt, "code_test", {}, {
      config: { "dev.test_cmd": `${Deno.execPath()} test --no-prompt app_test.ts` },
    });
    assert.match(tested.output, /exit 0\nsummary: 1 passed, 0 failed/);
    assert.equal(tested.isolation, BWRAP);
  },
});

Deno.test({
  name: "a command stopped by the sandbox is rerun once without it only when the person says yes",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    const marker = join(Deno.cwd(), `.sandbox_marker_${crypto.randomUUID()}`);
    const questions: string[] = [];
    const run = async (answer: string | null) => {
      const config = Config.defaults();
      return await invokeTool({
        registry: createRegistry(),
        policy: new ToolPolicy({ config, worktree: wt.path, headless: "yes" }),
        ctx: createToolContext({
          config,
          worktree: wt.path,
          signal: new AbortController().signal,
          ask: (request) => {
            questions.push(request.question);
            return Promise.resolve(answer);
          },
        }),
        sink: new RecordingSink(),
      }, { id: "c1", name: "run_command", arguments: { command: `touch ${marker}` } });
    };
    try {
      const declined = await run("no");
      assert.equal(await exists(marker), false);
      assert.match(declined.output, /the user may rerun it without the sandbox/);
      assert.match(questions[0] ?? "", /failed inside the sandbox: .*Run it once without/);
      const accepted = await run("yes");
      assert.equal(await exists(marker), true);
      assert.equal(
        accepted.output,
        "exit 0\n[sandbox] rerun without the sandbox, as the user allowed",
      );
      assert.equal(accepted.isolation, "none");
    } finally {
      await Deno.remove(marker).catch(() => {});
    }
  },
});

Deno.test({
  name: "mode sandboxed allows bash only while the sandbox is active",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    const audit: PermissionRecord[] = [];
    const boxed = await invokeInWorktree(wt, "run_command", { command: "echo ok" }, {
      mode: "sandboxed",
      headless: "no",
      audit,
    });
    assert.equal(boxed.output, "exit 0\nok");
    assert.deepEqual([audit[0]?.action, audit[0]?.reason], [
      "allow",
      `tool_permission.bash_sandboxed (${BWRAP})`,
    ]);
    const unboxed = await invokeInWorktree(wt, "run_command", { command: "echo ok" }, {
      mode: "sandboxed",
      headless: "no",
      config: OFF,
    });
    assert.equal(unboxed.decision, "denied", "without the sandbox bash asks, and headless denies");
  },
});

/** A PATH holding only what replio needs to run commands: no bwrap, as on a machine without it. */
async function pathWithoutBwrap(dir: string): Promise<string> {
  const bin = join(dir, ".bin");
  await Deno.mkdir(bin);
  for (const program of ["bash", "setsid", "git", "touch"]) {
    const found = await new Deno.Command("bash", {
      args: ["-c", `command -v ${program}`],
    }).output();
    const path = new TextDecoder().decode(found.stdout).trim();
    await Deno.symlink(path, join(bin, program));
  }
  return bin;
}

Deno.test("without bwrap, sandbox auto runs unsandboxed and records none; bwrap refuses", async () => {
  await using wt = await gitWorktree();
  const env = { PATH: await pathWithoutBwrap(wt.path) };
  const args = ["tool", "run_command", '{"command":"touch made"}', "--yes", "--json"];
  const auto = await runReplio([...args, "--trust"], { cwd: wt.path, env });
  const result = JSON.parse(auto.stdout);
  assert.equal(result.output, "exit 0");
  assert.equal(result.isolation, "none");
  assert.equal(result.permissions[0].isolation, "none");
  assert.equal(await exists(join(wt.path, "made")), true);

  await wt.write(".replio/config.yaml", "sandbox:\n  mode: bwrap\n");
  await Deno.remove(join(wt.path, "made"));
  const strict = await runReplio([...args, "--trust"], { cwd: wt.path, env });
  const refused = JSON.parse(strict.stdout);
  assert.match(refused.output, /^Error: Cannot run commands: sandbox.mode is "bwrap" but/);
  assert.equal(refused.isolation, "none");
  assert.equal(await exists(join(wt.path, "made")), false);
});

Deno.test({
  name: "replio tools --json names how each tool runs",
  ignore,
  async fn() {
    await using wt = await gitWorktree();
    const listed = JSON.parse(
      (await runReplio(["tools", "--json", "--trust"], { cwd: wt.path })).stdout,
    );
    const isolation = (name: string) =>
      listed.tools.find((t: { name: string }) => t.name === name)?.isolation;
    assert.equal(isolation("run_command"), BWRAP);
    assert.equal(isolation("code_test"), BWRAP);
    assert.equal(isolation("file_read"), "in-process");
  },
});

const ECHO_SERVER = new URL("./support/mcp_echo_server.ts", import.meta.url).pathname;

Deno.test({
  name: "sandbox.mcp starts MCP stdio servers inside bwrap and records it per call",
  // /tmp is private inside the sandbox by design: a checkout under the host's /tmp (some CI
  // clones) hides the test's own server script from it.
  ignore: ignore || ECHO_SERVER.startsWith("/tmp/"),
  async fn() {
    await using wt = await gitWorktree();
    const servers = { echo: { command: Deno.execPath(), args: ["run", "-A", ECHO_SERVER] } };
    const call = ["tool", "mcp__echo__echo", '{"text":"hi"}', "--yes", "--json"];
    // The server may start as slowly as a busy machine makes it (the default allows 10 s).
    const slowStart = { mcp_connect_timeout: 60 };
    await wt.write(".replio/config.yaml", JSON.stringify({ mcp_servers: servers, ...slowStart }));
    const plain = JSON.parse((await runReplio([...call, "--trust"], { cwd: wt.path })).stdout);
    assert.equal(plain.isolation, "none");
    await wt.write(
      ".replio/config.yaml",
      JSON.stringify({ mcp_servers: servers, sandbox: { mcp: true }, ...slowStart }),
    );
    const boxed = JSON.parse((await runReplio([...call, "--trust"], { cwd: wt.path })).stdout);
    assert.equal(boxed.is_error, false, boxed.output);
    assert.equal(boxed.isolation, BWRAP);
    assert.equal(boxed.permissions[0].isolation, BWRAP);
  },
});
