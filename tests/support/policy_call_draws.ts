/**
 * Random tool calls for tests/security/policy_properties_test.ts: writes to protected and
 * ordinary paths (through `..`, symlinks, odd case, outside the worktree), commands, test runs,
 * commits and reads, each with the probe that shows whether it ran; who answers them; and the
 * calls a resumed turn may make after a parked call was answered.
 * @module
 */
import type { Draw } from "./policy_draws.ts";

/** What a call is checked by: what it changes on disk when (and only when) it runs. */
export type Probe =
  /** A file a write or edit changes; `target` is relative to the world's root folder. */
  | { kind: "file"; target: string; isProtected: boolean; isNew: boolean }
  /** A file a command creates (relative to the worktree). */
  | { kind: "marker"; marker: string }
  /** A commit: git's reflog grows. */
  | { kind: "commit" }
  /** A read: its output holds text only the read file holds. */
  | { kind: "read"; secret: string };

/** One tool call as the model sends it, and how to see whether it ran. */
export interface DrawnCall {
  id: string;
  /** As the model wrote it: a name or an alias. */
  name: string;
  /** The tool it names. */
  tool: string;
  args: Record<string, unknown>;
  probe: Probe;
}

/** Who answers an ask: a person at a confirm prompt, or a headless run's flag. */
export type Answerer =
  | { kind: "person"; answer: "yes" | "no" | "always" | "cancel" | "edited" }
  | { kind: "headless"; answer: "yes" | "no" | "park" };

/**
 * A path a write may be given (relative to the worktree) with the file it lands on (relative to
 * the root folder) and whether that is a protected path. The worktree layout is in
 * tests/support/policy_world.ts.
 */
const WRITE_PATHS: readonly { given: string; target: string; isProtected: boolean }[] = [
  { given: ".git/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "./.git/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "src/../.git/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "<wt>/.git/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "gitlink/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "hooklink", target: "wt/.git/link-target", isProtected: true },
  { given: ".GIT/prop-target", target: "wt/.GIT/prop-target", isProtected: true },
  { given: "sub/.git/prop-target", target: "wt/sub/.git/prop-target", isProtected: true },
  { given: ".git/./prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "chain/prop-target", target: "wt/.git/prop-target", isProtected: true },
  { given: "danglink", target: "wt/.git/dangling-target", isProtected: true },
  { given: "linked/.git", target: "wt/linked/.git", isProtected: true },
  { given: ".replio/prop-target", target: "wt/.replio/prop-target", isProtected: true },
  { given: "replink/prop-target", target: "wt/.replio/prop-target", isProtected: true },
  { given: ".git/hooks/post-checkout", target: "wt/.git/hooks/post-checkout", isProtected: true },
  { given: "../other/.git/prop-target", target: "other/.git/prop-target", isProtected: true },
  { given: "a.txt", target: "wt/a.txt", isProtected: false },
  { given: "src/b.txt", target: "wt/src/b.txt", isProtected: false },
  { given: "new/c.txt", target: "wt/new/c.txt", isProtected: false },
  { given: ".gitignore", target: "wt/.gitignore", isProtected: false },
  { given: ".github/ci.yml", target: "wt/.github/ci.yml", isProtected: false },
  { given: "../outside.txt", target: "outside.txt", isProtected: false },
  { given: "outlink", target: "outside.txt", isProtected: false },
];

/** Files that do not exist until a write makes them. */
const NEW_TARGETS = new Set([
  "wt/new/c.txt",
  "wt/.git/hooks/post-checkout",
  "wt/.git/dangling-target",
]);

/** The content every existing write target starts with (and is reset to before a call). */
export const ORIGINAL_CONTENT = "original\n";

const COMMANDS = [
  (m: string) => `touch ${m}`,
  (m: string) => `touch ${m} && echo done`,
  (m: string) => `echo x > ${m}`,
  (m: string) => `ls && touch ${m}`,
];

/** The drawn tools, with how often each is drawn (commands and commits cost a process). */
const TOOL_WEIGHTS: readonly [string, number][] = [
  ["file_write", 30],
  ["file_edit", 14],
  ["file_read", 10],
  ["list_dir", 3],
  ["glob", 3],
  ["grep", 3],
  ["run_command", 12],
  ["code_test", 3],
  ["git_commit", 2],
];
const WEIGHTED_TOOLS = TOOL_WEIGHTS.flatMap(([name, weight]) => Array(weight).fill(name));

/** Draws call number `n`; `aliases` maps each tool to its aliases. */
export function drawCall(
  draw: Draw,
  n: number,
  worktree: string,
  aliases: ReadonlyMap<string, readonly string[]>,
): DrawnCall {
  const tool: string = draw.pick(WEIGHTED_TOOLS);
  const name = draw.chance(0.3) ? draw.pick([tool, ...aliases.get(tool) ?? []]) : tool;
  const id = `call_${n}`;
  const token = `written by call ${n}\n`;
  if (tool === "file_write" || tool === "file_edit") {
    const path = draw.pick(WRITE_PATHS);
    const given = path.given.replace("<wt>", worktree);
    const probe: Probe = {
      kind: "file",
      target: path.target,
      isProtected: path.isProtected,
      isNew: NEW_TARGETS.has(path.target),
    };
    const args = tool === "file_write"
      ? { path: given, content: token }
      : { path: given, old: "original", new: `edited by call ${n}` };
    return { id, name, tool, args, probe };
  }
  if (tool === "run_command") {
    const marker = `ran-${n}`;
    return {
      id,
      name,
      tool,
      args: { command: draw.pick(COMMANDS)(marker) },
      probe: markerProbe(marker),
    };
  }
  if (tool === "code_test") {
    // dev.test_cmd is `touch` (global config): the argument is the file it makes.
    const marker = `tested-${n}`;
    return { id, name, tool, args: { args: [marker] }, probe: markerProbe(marker) };
  }
  if (tool === "git_commit") {
    return {
      id,
      name,
      tool,
      args: { message: `commit ${n}`, paths: ["tracked.txt"] },
      probe: { kind: "commit" },
    };
  }
  return { id, name, tool, ...readCall(tool, draw.chance(0.25)) };
}

/** A read of a file inside the worktree or outside it, and the text its output then shows. */
function readCall(tool: string, outside: boolean): Pick<DrawnCall, "args" | "probe"> {
  const secret = outside ? "outside-secret" : "inside-secret";
  const file = outside ? "../outside-read.txt" : "secret.txt";
  const args: Record<string, Record<string, unknown>> = {
    file_read: { path: file },
    list_dir: { path: outside ? ".." : "." },
    glob: { pattern: "*.txt", ...(outside ? { path: ".." } : {}) },
    grep: { pattern: secret.replace("-", "."), ...(outside ? { path: ".." } : {}) },
  };
  // A listing shows the file's name; a read or a search shows its content.
  const shown = tool === "file_read" || tool === "grep"
    ? secret
    : outside
    ? "outside-read.txt"
    : "secret.txt";
  return { args: args[tool]!, probe: { kind: "read", secret: shown } };
}

function markerProbe(marker: string): Probe {
  return { kind: "marker", marker };
}

/** Draws who answers a call's ask. */
export function drawAnswerer(draw: Draw, tool: string): Answerer {
  if (draw.chance(0.4)) {
    const answers = ["yes", "no", "always", "cancel", "yes"] as const;
    // Only a command can be edited at the prompt (its key argument is not a path).
    const answer = tool === "run_command" && draw.chance(0.1) ? "edited" : draw.pick(answers);
    return { kind: "person", answer };
  }
  return { kind: "headless", answer: draw.pick(["yes", "no", "park", "park"] as const) };
}

/**
 * How a later call relates to a parked call that a person answered: the same call (as the
 * model may resend it: keys reordered, by an alias, with an undeclared argument the registry
 * drops), the same call again after the answer was used, or a different call (another id, changed
 * arguments, another tool under the same id).
 */
export type Variant =
  | "exact"
  | "reordered"
  | "alias"
  | "extra-argument"
  | "exact-again"
  | "other-id"
  | "changed-arguments"
  | "other-tool";

/** Variants that are the answered call itself. */
export const SAME_CALL: ReadonlySet<Variant> = new Set([
  "exact",
  "reordered",
  "alias",
  "extra-argument",
  "exact-again",
]);

/** A later call of kind `variant` made from the parked call `parked`. */
export function variantCall(
  parked: DrawnCall,
  variant: Variant,
  n: number,
  aliases: ReadonlyMap<string, readonly string[]>,
): DrawnCall {
  const reversed = Object.fromEntries(Object.entries(parked.args).reverse());
  switch (variant) {
    case "exact":
    case "exact-again":
      return parked;
    case "reordered":
      return { ...parked, args: reversed };
    case "alias":
      return { ...parked, name: aliases.get(parked.tool)?.[0] ?? parked.tool };
    case "extra-argument":
      return { ...parked, args: { ...parked.args, unrelated_key: "not a parameter" } };
    case "other-id":
      return { ...parked, id: `resent_${n}` };
    case "changed-arguments":
      return changedArguments(parked);
    case "other-tool":
      return otherTool(parked);
  }
}

/** The call with one argument changed (a read: inside the worktree instead of out, or back). */
function changedArguments(call: DrawnCall): DrawnCall {
  const { args, probe } = call;
  if (probe.kind === "read") {
    return { ...call, ...readCall(call.tool, !probe.secret.startsWith("outside")) };
  }
  const changed = typeof args.command === "string"
    ? { command: `${args.command} ` }
    : typeof args.content === "string"
    ? { content: `${args.content}changed\n` }
    : typeof args.new === "string"
    ? { new: `${args.new} changed` }
    : typeof args.message === "string"
    ? { message: `${args.message} changed` }
    : { args: [...args.args as string[], "extra"] };
  return { ...call, args: { ...args, ...changed } };
}

/** The same id under another tool: a write as an edit, a command as a test run, and so on. */
function otherTool(call: DrawnCall): DrawnCall {
  const { args } = call;
  const marker = `other-${call.id}`;
  switch (call.tool) {
    case "file_write":
      return {
        ...call,
        name: "file_edit",
        tool: "file_edit",
        args: { path: args.path, old: "original", new: String(args.content) },
      };
    case "file_edit":
      return {
        ...call,
        name: "file_write",
        tool: "file_write",
        args: { path: args.path, content: String(args.new) },
      };
    case "run_command":
      return {
        ...call,
        name: "code_test",
        tool: "code_test",
        args: { args: [marker] },
        probe: markerProbe(marker),
      };
    case "code_test":
    case "git_commit":
      return {
        ...call,
        name: "run_command",
        tool: "run_command",
        args: { command: `touch ${marker}` },
        probe: markerProbe(marker),
      };
    case "file_read":
      return {
        ...call,
        name: "list_dir",
        tool: "list_dir",
        args: { path: "." },
        probe: { kind: "read", secret: "secret.txt" },
      };
    default:
      return {
        ...call,
        name: "file_read",
        tool: "file_read",
        args: { path: "secret.txt" },
        probe: { kind: "read", secret: "inside-secret" },
      };
  }
}
