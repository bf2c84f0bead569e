/**
 * The OS sandbox for commands (run_command, code_*, opted-in MCP servers): bubblewrap on Linux.
 * The worktree is writable except every `.git` and `.replio` in it (a missing root one gets a
 * read-only stand-in), the rest of the filesystem is read-only, `/tmp` is private, the host's
 * sockets are out of reach and the network is off unless `sandbox.network` is set.
 * This module decides whether a command runs under bwrap and builds the argv that wraps it;
 * the child's environment is scrubbed by the spawner, not here.
 * @module
 */
import { isAbsolute, relative } from "../fs/path.ts";
import type { Config } from "../config/config.ts";
import { coverSockets, type SocketCover } from "./host_sockets.ts";
import { protectedBelow } from "./protected_below.ts";
import { PROTECTED_DIRS, type RootGuard, rootGuards } from "./stand_ins.ts";

export { PROTECTED_DIRS };

/** How one command runs: under bwrap, or without a sandbox (`label` says which, for the audit). */
export interface SandboxPlan {
  kind: "bwrap" | "none";
  /** Whether the command keeps the host's network. */
  network: boolean;
  worktree: string;
  /** `bwrap(net=off, write=worktree)` or `none`: what the audit and stream-json record. */
  label: string;
  /** Set when `sandbox.mode: bwrap` is asked for but bwrap cannot run here: the command is refused. */
  problem?: string;
}

let probed: Probe | undefined;
let probing: Promise<void> | undefined;

interface Probe {
  usable: boolean;
  reason: string;
}

/**
 * Whether bubblewrap runs here (installed, user namespaces allowed, and every mount the real
 * sandbox makes permitted). The probe runs the exact argv a command gets, around a scratch
 * worktree, so a container that allows user namespaces but refuses, say, a tmpfs is caught
 * here and not at the first command. Probed once per process, synchronously because the
 * policy asks while listing tools (about 20 ms), unless {@link probeBwrapSoon} has answered.
 */
export function bwrapUsable(): boolean {
  return probeBwrap().usable;
}

/** Why bubblewrap cannot run here (bwrap's own words), or "" when it can. */
export function bwrapProblem(): string {
  return probeBwrap().reason;
}

/**
 * Starts the probe in the background when `config` may sandbox commands, so that the first
 * command finds the answer ready instead of waiting about 20 ms for it (`replio run` calls it
 * when the model asks for its first tool). Resolves once the answer is in.
 */
export function probeBwrapSoon(config: Config): Promise<void> {
  if (probed || config.get("sandbox.mode") === "off" || Deno.build.os !== "linux") {
    return Promise.resolve();
  }
  return probing ??= (async () => {
    const scratch = await Deno.makeTempDir({ prefix: "replio_bwrap_probe_" });
    try {
      probed ??= probeResult(await probeCommand(scratch).output());
    } finally {
      await Deno.remove(scratch, { recursive: true });
    }
  })().catch((error) => {
    probed ??= notRunnable(error);
  });
}

function probeBwrap(): Probe {
  if (probed) return probed;
  if (Deno.build.os !== "linux") return probed = { usable: false, reason: "not Linux" };
  let scratch: string | undefined;
  try {
    scratch = Deno.makeTempDirSync({ prefix: "replio_bwrap_probe_" });
    probed = probeResult(probeCommand(scratch).outputSync());
  } catch (error) {
    probed = notRunnable(error);
  } finally {
    if (scratch) Deno.removeSync(scratch, { recursive: true });
  }
  return probed;
}

function probeCommand(scratch: string): Deno.Command {
  const plan = { kind: "bwrap", network: false, worktree: scratch, label: "" } as const;
  // Present, so the probe makes no stand-in; bound read-only like every protected folder.
  for (const name of PROTECTED_DIRS) Deno.mkdirSync(`${scratch}/${name}`);
  return new Deno.Command("bwrap", {
    args: [...sandboxArgv(plan, scratch, sandboxEdges(plan, { hold: true })), "true"],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  });
}

function probeResult(probe: Deno.CommandOutput): Probe {
  const reason = new TextDecoder().decode(probe.stderr).trim().split("\n")[0] ?? "";
  return { usable: probe.success, reason: probe.success ? "" : reason || `exit ${probe.code}` };
}

/** Not installed, or replio may not run it: either way no sandbox. */
function notRunnable(error: unknown): Probe {
  return { usable: false, reason: error instanceof Error ? error.message : String(error) };
}

/** The label of a bwrap run, e.g. `bwrap(net=off, write=worktree)`. */
export function bwrapLabel(network: boolean): string {
  return `bwrap(net=${network ? "on" : "off"}, write=worktree)`;
}

/** Decides how commands run under this config: `sandbox.mode` auto, bwrap or off. */
export function planSandbox(config: Config, worktree: string): SandboxPlan {
  const setting = config.get("sandbox.mode");
  const network = config.get("sandbox.network");
  const none = { kind: "none", network: true, worktree, label: "none" } as const;
  if (setting === "off") return none;
  if (bwrapUsable()) return { kind: "bwrap", network, worktree, label: bwrapLabel(network) };
  if (setting === "auto") return none;
  return {
    ...none,
    problem: `Cannot run commands: sandbox.mode is "bwrap" but bubblewrap cannot run here ` +
      `(${bwrapProblem()}): install it (apt-get install bubblewrap) or set sandbox.mode to ` +
      `auto or off`,
  };
}

/** What the audit records for a command tool under this config (no command is run). */
export function commandIsolation(config: Config, worktree: string): string {
  return planSandbox(config, worktree).label;
}

/** What a sandbox keeps from a command beyond the read-only root, looked up before each start. */
export interface SandboxEdges {
  /** The root's `.git` and `.replio`: present, or a stand-in while the command runs. */
  rootGuards: RootGuard[];
  /** Every `.git`, `.replio` and git folder below the root (protected_below.ts). */
  nested: string[];
  sockets: SocketCover;
}

/**
 * The edges for `plan` now. With `hold`, missing root folders get stand-ins held for a sandbox
 * (released by the spawner when it ends); without it nothing is made (a report). Throws when the
 * worktree is too large to look through.
 */
export function sandboxEdges(plan: SandboxPlan, options: { hold: boolean }): SandboxEdges {
  // Stand-ins last: nothing after them may throw and leave them held.
  const nested = protectedBelow(plan.worktree);
  const sockets = coverSockets(plan.worktree);
  return { rootGuards: rootGuards(plan.worktree, options), nested, sockets };
}

/**
 * The argv prefix that runs a program inside the sandbox, ending in `--`: read-only root, the
 * worktree bound read-write with every protected folder in it read-only again, a private `/tmp`,
 * the host's sockets hidden, a fresh `/dev`, its own processes only, no network unless planned,
 * and it dies with replio. A missing root `.git` or `.replio` gets a stand-in held until
 * `releaseStandIns` (spare_shell.ts gives a command's back when it exits; a caller that never
 * does, a long-lived MCP server, keeps it until replio exits).
 */
export function bwrapArgs(plan: SandboxPlan, cwd: string): Promise<string[]> {
  // The looking is synchronous (Deno's sync metadata calls cost a tenth of the async ones); a
  // throw still arrives as a rejection.
  return new Promise((resolve) =>
    resolve(sandboxArgv(plan, cwd, sandboxEdges(plan, { hold: true })))
  );
}

/**
 * The argv itself. A PID namespace with its own `/proc` hides every process outside the
 * sandbox: without it a command reads replio's own `/proc/<pid>/environ`, API keys included,
 * whatever the spawner scrubbed from its own. Order matters: a later mount covers an earlier one.
 */
function sandboxArgv(plan: SandboxPlan, cwd: string, edges: SandboxEdges): string[] {
  const { sockets } = edges;
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--unshare-pid",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    ...sockets.hidden.flatMap((dir) => ["--tmpfs", dir]),
    ...sockets.links.flatMap(([target, path]) => ["--symlink", target, path]),
    ...sockets.files.flatMap((file) => ["--ro-bind", file, file]),
    ...sockets.dirs.flatMap((dir) => ["--dir", dir]),
    // After the tmpfs mounts, so a worktree under /tmp or /run is bound over them again.
    "--bind",
    plan.worktree,
    plan.worktree,
  ];
  // A confirmed cwd outside the worktree stays readable, even under the private /tmp.
  const rel = relative(plan.worktree, cwd);
  if (rel.startsWith("..") || isAbsolute(rel)) args.push("--ro-bind", cwd, cwd);
  // Missing, a root guard would be a hole: bwrap then refuses to start (no -try).
  for (const { path } of edges.rootGuards) args.push("--ro-bind", path, path);
  // A nested one removed since the look is simply gone.
  for (const path of edges.nested) args.push("--ro-bind-try", path, path);
  // Last, so no bind above brings a socket back.
  for (const path of sockets.covered) args.push("--ro-bind", "/dev/null", path);
  if (!plan.network) args.push("--unshare-net");
  args.push("--die-with-parent", "--chdir", cwd, "--");
  return args;
}

/** Output lines a sandbox denial prints; `Connection refused` counts only with the network off. */
const WRITE_DENIED = /Read-only file system/;
/** A path under /tmp the command could not find (bash and coreutils word it this way). */
const MISSING_IN_TMP = /(\/tmp\/[^\s:'"]+)'?: No such file or directory/g;

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}
/** A client that could not reach a daemon's socket (docker, D-Bus, a path under /run). */
const SOCKET_DENIED =
  /Cannot connect to the Docker daemon|Failed to connect to (the )?bus|(\/var)?\/run\/\S*: (No such file or directory|Connection refused)/;
const NET_DENIED =
  /Network is unreachable|Could not resolve host|Temporary failure in name resolution|Name or service not known|getaddrinfo|Connection refused|ENETUNREACH|ECONNREFUSED/;

/**
 * Why a failed sandboxed command may have failed because of the sandbox, or null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const plan = { kind: "bwrap", network: false, worktree: "/w", label: "" } as const;
 * assert.match(sandboxHint(plan, 1, "touch: /etc/x: Read-only file system")!, /outside/);
 * assert.equal(sandboxHint(plan, 0, "Read-only file system"), null);
 * ```
 */
export function sandboxHint(
  plan: SandboxPlan,
  exitCode: number | null,
  output: string,
): string | null {
  if (plan.kind !== "bwrap" || exitCode === 0) return null;
  if (WRITE_DENIED.test(output)) {
    return "the sandbox may have stopped it: writes outside the worktree and to any " +
      `${PROTECTED_DIRS.join(" or ")} folder are refused (read-only file system)`;
  }
  if (SOCKET_DENIED.test(output)) {
    return "the sandbox may have stopped it: the host's sockets (/run, /var/run, " +
      "$XDG_RUNTIME_DIR and those under ~) are out of reach, so no daemon (docker, D-Bus, " +
      "systemd) can be asked to run anything";
  }
  // /tmp is private inside the sandbox: the host's files there (other than the worktree's) are
  // not visible, so a write or read there fails as "no such file" rather than "read-only".
  const missing = [...output.matchAll(MISSING_IN_TMP)].map((m) => m[1]!);
  if (missing.some((path) => !isWithin(path, plan.worktree))) {
    return "the sandbox may have stopped it: writes outside the worktree are refused, and /tmp " +
      "is private inside the sandbox (the host's files there are not visible)";
  }
  if (!plan.network && NET_DENIED.test(output)) {
    return "the sandbox may have stopped it: the network is off (set sandbox.network: true " +
      "to allow it)";
  }
  return null;
}
