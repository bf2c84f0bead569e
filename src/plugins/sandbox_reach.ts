/**
 * What a sandboxed command cannot reach here, for `replio permissions`: worked out exactly as a
 * command's start would (the same look at the worktree and at the host's sockets), but without
 * making a stand-in.
 * @module
 */
import type { Config } from "../config/config.ts";
import { relative } from "../fs/path.ts";
import { bwrapProblem, planSandbox, sandboxEdges } from "./sandbox_bwrap.ts";

/** What `replio permissions` says about the sandbox (its `sandbox` key in `--json`). */
export interface SandboxReach {
  /** How commands run: the sandbox's label, or `none`. */
  isolation: string;
  /** Why commands run without the sandbox, or why they are refused; empty when they run in it. */
  problem: string;
  /** Paths a command may read but not write or create (worktree paths relative to it). */
  readOnly: string[];
  /** Folders a command sees empty (the host's files and sockets there are out of sight). */
  hidden: string[];
  /** Sockets covered one by one (under `$HOME` and LXD's). */
  sockets: string[];
  network: string;
  processes: string;
  /** What stays within reach, and why. */
  left: string[];
}

/** What stays within a sandboxed command's reach whatever the setup (docs/sandbox.md). */
const LEFT = [
  "reading what you can read outside the hidden folders (keys under ~/.ssh included): the " +
  "sandbox fences writes, sockets and processes, not reads",
  "unix sockets elsewhere (/var/lib, /srv, /var/tmp, ~'s visible folders, more than two " +
  "folders down in its hidden ones): replio hides the places daemons keep them",
  "sockets inside the worktree: the worktree is shared with commands",
  "a repository a command makes (git init sub): git run there later uses its config",
];

/** The sandbox's reach for commands in `worktree` under `config`. */
export function sandboxReach(config: Config, worktree: string): SandboxReach {
  const plan = planSandbox(config, worktree);
  const none = {
    isolation: "none",
    readOnly: [],
    hidden: [],
    sockets: [],
    network: "the host's",
    processes: "all of the user's",
    left: ["everything the user can reach: commands run without the sandbox"],
  };
  if (plan.kind !== "bwrap") {
    const why = config.get("sandbox.mode") === "off" ? "sandbox.mode is off" : plan.problem ??
      `bubblewrap cannot run here (${bwrapProblem()}): commands run without it (sandbox.mode auto)`;
    return { ...none, problem: why };
  }
  let edges;
  try {
    edges = sandboxEdges(plan, { hold: false });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { ...none, isolation: plan.label, problem: error.message, left: [] };
  }
  const inWorktree = (path: string) => relative(worktree, path) || ".";
  const { sockets } = edges;
  return {
    isolation: plan.label,
    problem: "",
    readOnly: [
      "everything outside the worktree",
      ...edges.rootGuards.map(({ path, kind }) =>
        kind === "present" ? inWorktree(path) : `${inWorktree(path)} (missing: an empty stand-in ` +
          "while a command runs, so none can be made)"
      ),
      ...edges.nested.map(inWorktree),
    ],
    hidden: [
      "/tmp (private to each command)",
      ...sockets.hidden,
      ...sockets.home.how === "unknown"
        ? ["(no sockets under $HOME looked for: replio may not read HOME)"]
        : [],
    ],
    sockets: sockets.covered,
    network: plan.network
      ? "the host's (sandbox.network): hosts, 127.0.0.1 and abstract unix sockets are reachable"
      : "off: no host, not even the host's 127.0.0.1, and no abstract unix socket",
    processes: "its own only: replio's and yours are out of sight (/proc)",
    left: LEFT,
  };
}
