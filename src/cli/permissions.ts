/**
 * `replio permissions`: what this process was granted by Deno, what follows for each tool
 * (usable, usable only where granted, or unavailable and the flag that fixes it), which hosts
 * the model and the web tools need, the narrowest flag set for what the config enables, and what
 * a sandboxed command cannot reach. It asks `Deno.permissions.querySync()`, which never prompts,
 * and looks at the worktree as a command's start would, making nothing. See docs/sandbox.md.
 * @module
 */
import { canReadEnv, denoNeedsOf, modelHostOf, netGrantKind, type Tool } from "../tools/mod.ts";
import { configPaths } from "../config/mod.ts";
import { type SandboxReach, sandboxReach } from "../plugins/sandbox_reach.ts";
import { EXIT } from "./errors.ts";
import { openWorkspace, type Workspace } from "./workspace.ts";

/** Options of `replio permissions`. */
export interface PermissionsCommandOptions {
  json?: boolean;
  mode?: string;
  path?: string;
  baseUrl?: string;
}

/** One tool's standing under this process's grants. */
export interface ToolStanding {
  name: string;
  /** `usable`, `worktree` (usable; other paths only where granted), `unavailable`, `denied`. */
  status: "usable" | "worktree" | "unavailable" | "denied";
  /** What decided: the missing flags, or the policy reason for `denied`. */
  detail: string;
}

/** What `replio permissions --json` prints. */
export interface PermissionReport {
  worktree: string;
  granted: Record<"read" | "write" | "run" | "net" | "env", string>;
  tools: ToolStanding[];
  hosts: { model: string; web: string };
  /** Whether the global config file can be seen, and the grant that would show it. */
  globalConfig: string;
  /** The narrowest `deno run` flags serving every tool the config enables. */
  suggested: string[];
  /** What a command run_command or the code_* tools start cannot reach. */
  sandbox: SandboxReach;
}

/** Programs tools may run without declaring them: grep's optional ripgrep. */
const OPTIONAL_PROGRAMS = ["rg"];

/** Builds the report for a workspace. */
export function permissionReport(ws: Workspace): PermissionReport {
  const modelHost = modelHostOf(ws.config.get("base_url"), ws.config.get("provider"));
  const tools = ws.registry.list().map((tool) => standing(ws, tool));
  return {
    worktree: ws.worktree,
    granted: {
      read: pathGrant("read", ws.worktree),
      write: pathGrant("write", ws.worktree),
      run: runGrants(ws),
      net: { all: "all hosts", hosts: "some hosts", none: "none" }[
        netGrantKind(modelHost === null ? [] : [modelHost])
      ],
      env: Deno.permissions.querySync({ name: "env" }).state === "granted"
        ? "all variables"
        : envNames(ws).map((name) => `${name}: ${canReadEnv(name) ? "yes" : "no"}`).join(", "),
    },
    tools,
    hosts: {
      model: modelHost === null
        ? "found at run time (OPENAI_BASE_URL, api.openai.com or Ollama on 127.0.0.1:11434)"
        : `${modelHost} (${
          yesNo(Deno.permissions.querySync({ name: "net", host: modelHost }).state)
        })`,
      web: "any host (web_fetch and web_search need an unrestricted --allow-net)",
    },
    globalConfig: globalConfigStanding(ws.worktree),
    suggested: suggestFlags(ws, tools, modelHost),
    sandbox: sandboxReach(ws.config, ws.worktree),
  };
}

/** A global config replio cannot see is not an error (defaults apply), but it is said here. */
function globalConfigStanding(worktree: string): string {
  const file = configPaths(worktree).global;
  if (file === null) {
    return "not looked for: replio may not read XDG_CONFIG_HOME or HOME " +
      "(add --allow-env=XDG_CONFIG_HOME,HOME to use it)";
  }
  return Deno.permissions.querySync({ name: "read", path: file }).state === "granted"
    ? file
    : `${file} is not read: add --allow-read=${file} to use it`;
}

function standing(ws: Workspace, tool: Tool): ToolStanding {
  const policy = ws.policy.resolveStatic(tool);
  if (policy.action === "deny") {
    // The Deno layer's deny carries the flags; any other deny is the policy's.
    return policy.denoFlags
      ? { name: tool.name, status: "unavailable", detail: `needs ${policy.denoFlags}` }
      : { name: tool.name, status: "denied", detail: `policy: ${policy.reason}` };
  }
  const needs = denoNeedsOf(tool);
  const partial = (["read", "write"] as const).filter((name) =>
    needs[name] && Deno.permissions.querySync({ name }).state !== "granted"
  );
  if (partial.length) {
    return {
      name: tool.name,
      status: "worktree",
      detail: `in the worktree; other paths only where --allow-${partial.join("/")} grants them`,
    };
  }
  return { name: tool.name, status: "usable", detail: `${policy.action} (${policy.reason})` };
}

/** Each program a tool may run, with whether it is granted. */
function runGrants(ws: Workspace): string {
  if (Deno.permissions.querySync({ name: "run" }).state === "granted") return "all programs";
  const programs = new Set([
    ...ws.registry.list().flatMap((tool) => denoNeedsOf(tool).run ?? []),
    ...OPTIONAL_PROGRAMS,
  ]);
  return [...programs].map((command) =>
    `${command}: ${yesNo(Deno.permissions.querySync({ name: "run", command }).state)}`
  ).join(", ");
}

/** The narrowest flags for every tool the config leaves enabled, plus replio's own needs. */
function suggestFlags(ws: Workspace, tools: ToolStanding[], modelHost: string | null): string[] {
  const enabled = new Set(tools.filter((t) => t.status !== "denied").map((t) => t.name));
  const wanted = ws.registry.list().filter((tool) => enabled.has(tool.name)).map(denoNeedsOf);
  const run = [...new Set(wanted.flatMap((needs) => needs.run ?? []))];
  const webNet = wanted.some((needs) => needs.net);
  // Tools' own variables are optional (read only when granted), so the narrowest set omits them.
  const env = envNames(ws);
  // Sessions and history live in .replio/; without write they turn off (docs/sandbox.md).
  const write = wanted.some((needs) => needs.write) ? ws.worktree : `${ws.worktree}/.replio`;
  return [
    "--no-prompt",
    `--allow-read=${[ws.worktree, ...globalConfigOutside(ws.worktree)].join(",")}`,
    `--allow-write=${write}`,
    ...(run.length ? [`--allow-run=${run.join(",")}`] : []),
    webNet ? "--allow-net" : `--allow-net=${modelHost ?? "<model host:port>"}`,
    `--allow-env=${env.join(",")}`,
  ];
}

/** The global config file when it lies outside the worktree (it needs its own read grant). */
function globalConfigOutside(worktree: string): string[] {
  const file = configPaths(worktree).global;
  return file === null || file.startsWith(`${worktree}/`) ? [] : [file];
}

/** The variables replio itself reads: config location and the model server's settings. */
function envNames(ws: Workspace): string[] {
  const key = ws.config.get("api_key_env");
  const provider = ws.config.get("base_url") ? [] : ["OPENAI_BASE_URL"];
  return ["XDG_CONFIG_HOME", "HOME", ...provider, ...(key ? [key] : [])];
}

function pathGrant(name: "read" | "write", worktree: string): string {
  if (Deno.permissions.querySync({ name }).state === "granted") return "all paths";
  return Deno.permissions.querySync({ name, path: worktree }).state === "granted"
    ? "the worktree (and any other listed paths)"
    : "not the worktree";
}

function yesNo(state: Deno.PermissionState): string {
  return state === "granted" ? "granted" : "not granted";
}

/** Prints the report; exit 0. */
export async function printPermissions(options: PermissionsCommandOptions): Promise<number> {
  const ws = await openWorkspace(options);
  const report = permissionReport(ws);
  const text = options.json ? JSON.stringify(report, null, 2) + "\n" : formatReport(report);
  await Deno.stdout.write(new TextEncoder().encode(text));
  return EXIT.ok;
}

function formatReport(report: PermissionReport): string {
  const width = Math.max(...report.tools.map((t) => t.name.length), 5);
  const label: Record<ToolStanding["status"], string> = {
    usable: "usable",
    worktree: "usable",
    unavailable: "unavailable:",
    denied: "denied by",
  };
  return [
    `worktree: ${report.worktree}`,
    "granted:",
    ...Object.entries(report.granted).map(([name, value]) => `  ${name.padEnd(5)} ${value}`),
    "tools:",
    ...report.tools.map((t) => `  ${t.name.padEnd(width)}  ${label[t.status]} ${t.detail}`),
    "hosts:",
    `  model  ${report.hosts.model}`,
    `  web    ${report.hosts.web}`,
    `global config: ${report.globalConfig}`,
    "narrowest flags for this config:",
    `  deno run ${report.suggested.join(" ")} main.ts`,
    ...formatSandbox(report.sandbox),
    "",
  ].join("\n");
}

/** What a command cannot reach, one heading a kind; the lists in full (a person audits them). */
function formatSandbox(reach: SandboxReach): string[] {
  const list = (heading: string, items: string[]) =>
    items.length ? [`  ${heading}:`, ...items.map((item) => `    ${item}`)] : [];
  return [
    `commands run in: ${reach.isolation}${reach.problem ? ` (${reach.problem})` : ""}`,
    ...list("read-only", reach.readOnly),
    ...list("hidden", reach.hidden),
    ...list("sockets covered", reach.sockets),
    ...reach.isolation === "none" ? [] : [
      `  network: ${reach.network}`,
      `  processes: ${reach.processes}`,
    ],
    ...list("still reachable", reach.left),
  ];
}
