/**
 * What code_test, code_lint and code_format share: the configured or detected command, running
 * it through `runProcess`, and the result the model reads.
 * @module
 */
import {
  delimiter,
  type DenoNeeds,
  describeExit,
  join,
  LiveTail,
  readTextIfExists,
  runSandboxed,
  shellQuote,
  type Static,
  type ToolArgs,
  type ToolContext,
  Type,
} from "../../src/plugins/api.ts";
import { summarizeOutput } from "./_summarize_output.ts";

/** Which of the three jobs a tool does. */
/**
 * What the dev tools need of the Deno process: they read the project to detect its commands
 * and run them through setsid and bash; PATH is read when granted to name a missing program.
 */
export const DEV_DENO_NEEDS: DenoNeeds = { read: true, run: ["setsid", "bash"], env: ["PATH"] };

export type DevKind = "test" | "lint" | "format";

/** The parameters the three dev tools share. */
export const DEV_PARAMETERS = Type.Object({
  args: Type.Optional(Type.Array(Type.String(), {
    description: "Extra arguments appended to the command, e.g. a test file or a filter",
  })),
  timeout: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Seconds before the command is stopped; default the tool_timeout setting",
  })),
});

/** Arguments of a dev tool. */
export type DevArgs = Static<typeof DEV_PARAMETERS>;

/**
 * Lines kept from the start of the output: the command's banner. The tail gets the rest of
 * the room because failures and summaries are printed last.
 */
const HEAD_LINES = 20;
const TAIL_LINES = 150;

const CONFIG_KEYS = {
  test: "dev.test_cmd",
  lint: "dev.lint_cmd",
  format: "dev.format_cmd",
} as const;
const NOUNS = { test: "the tests", lint: "the linter", format: "the formatter" } as const;

/** npm init's placeholder test script: it only fails, so it is no test command. */
const NPM_PLACEHOLDER = "no test specified";

/** A command to run and where it came from (`dev.test_cmd`, `deno.json`, …). */
interface DevCommand {
  command: string;
  origin: string;
}

/** The status block: the command that would run and where it came from. */
export async function previewDevCommand(
  kind: DevKind,
  args: ToolArgs,
  ctx: ToolContext,
): Promise<string> {
  const { command, origin } = await resolveDevCommand(kind, args as DevArgs, ctx);
  return `${command} (${origin.startsWith("dev.") ? "from" : "detected from"} ${origin})`;
}

/** Runs the configured or detected command in the worktree and reports how it went. */
export async function runDevCommand(
  kind: DevKind,
  args: DevArgs,
  ctx: ToolContext,
): Promise<string> {
  const { command } = await resolveDevCommand(kind, args, ctx);
  const timeoutSeconds = args.timeout ?? ctx.config.get("tool_timeout");
  // The test run's last lines show while it runs (tool_progress).
  const live = ctx.progress ? new LiveTail(ctx.progress) : null;
  const result = await runSandboxed(ctx, {
    command,
    cwd: ctx.worktree,
    timeoutMs: timeoutSeconds * 1000,
    signal: ctx.signal,
    config: ctx.config,
    // Runners colour piped output otherwise (deno does), which costs tokens and hides summaries.
    env: { NO_COLOR: "1", FORCE_COLOR: "0" },
    headLines: HEAD_LINES,
    tailLines: TAIL_LINES,
    onBytes: live ? (chunk) => live.push(chunk) : undefined,
  }).finally(() => live?.stop());
  ctx.signal.throwIfAborted();
  const output = result.output.replace(ANSI_ESCAPE, "");
  const summary = summarizeOutput(output);
  const ended = result.timedOut
    ? `${describeExit(result)}: it was stopped; pass a larger timeout (seconds) or narrow ` +
      `the run with args`
    : describeExit(result);
  return [
    `$ ${command}`,
    ended,
    ...(summary ? [`summary: ${summary}`] : []),
    "",
    output === "" ? "(no output)" : output,
    ...(result.sandboxNote ? [result.sandboxNote] : []),
  ].join("\n");
}

/** Colour and cursor escapes some tools print even with NO_COLOR. */
const ANSI_ESCAPE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[ -/]*[@-~]`, "g");

/** The configured command, else the project's own, with `args` appended shell-quoted. */
async function resolveDevCommand(
  kind: DevKind,
  args: DevArgs,
  ctx: ToolContext,
): Promise<DevCommand> {
  const key = CONFIG_KEYS[kind];
  const configured = ctx.config.get(key).trim();
  const found = configured ? { command: configured, origin: key } : await detect(kind, ctx);
  if (!found) {
    throw new Error(
      `Cannot run ${NOUNS[kind]}: ${key} is not set and "${ctx.worktree}" has none of ` +
        `deno.json, package.json, pyproject.toml, setup.py, Cargo.toml or go.mod to detect it ` +
        `from: set ${key}, e.g. replio config set ${key} "make ${kind}"`,
    );
  }
  const extra = (args.args ?? []).map(shellQuote);
  if (extra.length === 0) return found;
  // npm passes arguments after `--` on to the script instead of reading them itself.
  const separator = found.command.startsWith("npm run ") ? " --" : "";
  return { ...found, command: `${found.command}${separator} ${extra.join(" ")}` };
}

/** The project's own command, from the first marker file in the worktree's root. */
async function detect(kind: DevKind, ctx: ToolContext): Promise<DevCommand | null> {
  const root = ctx.worktree;
  const exists = (name: string) => fileExists(join(root, name));
  const needs = async (program: string, origin: string) => {
    if (await findOnPath(program)) return;
    throw new Error(
      `Cannot run ${NOUNS[kind]}: "${program}" (detected from ${origin}) is not on PATH: ` +
        `install it, or set ${CONFIG_KEYS[kind]} to the command to run`,
    );
  };

  for (const origin of ["deno.json", "deno.jsonc"]) {
    if (!(await exists(origin))) continue;
    // The running deno when none is on PATH: replio itself runs on it.
    const deno = (await findOnPath("deno")) ? "deno" : shellQuote(Deno.execPath());
    const sub = { test: "test -A", lint: "lint", format: "fmt" }[kind];
    return { command: `${deno} ${sub}`, origin };
  }

  const script = await packageScript(kind, join(root, "package.json"));
  if (script) {
    await needs("npm", "package.json");
    return { command: `npm run ${shellQuote(script)}`, origin: "package.json" };
  }

  for (const origin of ["pyproject.toml", "setup.py", "setup.cfg"]) {
    if (!(await exists(origin))) continue;
    if (kind !== "test") {
      await needs("ruff", origin);
      return { command: kind === "lint" ? "ruff check ." : "ruff format .", origin };
    }
    const python = await findPython(root);
    if (!python) {
      throw new Error(
        `Cannot run the tests: no python3 or python is on PATH (detected from ${origin}): ` +
          `install Python, or set dev.test_cmd`,
      );
    }
    const runner = await usesPytest(root) ? "-m pytest" : "-m unittest discover";
    return { command: `${shellQuote(python)} ${runner}`, origin };
  }

  if (await exists("Cargo.toml")) {
    await needs("cargo", "Cargo.toml");
    const sub = { test: "test", lint: "clippy", format: "fmt" }[kind];
    return { command: `cargo ${sub}`, origin: "Cargo.toml" };
  }
  if (await exists("go.mod")) {
    const command = { test: "go test ./...", lint: "go vet ./...", format: "gofmt -l -w ." }[kind];
    await needs(command.split(" ")[0]!, "go.mod");
    return { command, origin: "go.mod" };
  }
  return null;
}

/** The package.json script for `kind`, if the project defines a real one. */
async function packageScript(kind: DevKind, file: string): Promise<string | null> {
  const text = await readTextIfExists(file);
  if (text === null) return null;
  let scripts: Record<string, unknown>;
  try {
    scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new SyntaxError(
      `Cannot detect a command from package.json: it is not valid JSON (${error.message}): ` +
        `fix package.json, or set the dev.*_cmd setting`,
    );
  }
  const names = { test: ["test"], lint: ["lint"], format: ["format", "fmt"] }[kind];
  return names.find((name) => {
    const body = scripts[name];
    return typeof body === "string" && !body.includes(NPM_PLACEHOLDER);
  }) ?? null;
}

/** A project virtualenv's interpreter first, then the first python3 or python on PATH. */
async function findPython(root: string): Promise<string | null> {
  for (const venv of [".venv", "venv"]) {
    const python = join(root, venv, "bin", "python");
    if (await isExecutable(python)) return python;
  }
  return await findOnPath("python3") ?? await findOnPath("python");
}

/** pytest projects say so in a config file; plain unittest is the fallback. */
async function usesPytest(root: string): Promise<boolean> {
  if (await fileExists(join(root, "pytest.ini")) || await fileExists(join(root, "conftest.py"))) {
    return true;
  }
  const pyproject = await readTextIfExists(join(root, "pyproject.toml")) ?? "";
  const setupCfg = await readTextIfExists(join(root, "setup.cfg")) ?? "";
  const tox = await readTextIfExists(join(root, "tox.ini")) ?? "";
  return pyproject.includes("[tool.pytest") || setupCfg.includes("[tool:pytest]") ||
    tox.includes("[pytest]");
}

/** The absolute path of `program` on PATH, or null (also when PATH may not be read). */
async function findOnPath(program: string): Promise<string | null> {
  if (Deno.permissions.querySync({ name: "env", variable: "PATH" }).state !== "granted") {
    return null;
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, program);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return false;
    }
    throw error;
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
