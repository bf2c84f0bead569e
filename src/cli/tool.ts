/**
 * `replio tool NAME [JSON]`: one tool call through the policy, as `/tool` does.
 * @module
 */
import {
  createToolContext,
  invokeTool,
  type PermissionRecord,
  ToolCallError,
  type ToolRegistry,
} from "../tools/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import { explainRefusal } from "../ui/refusal_line.ts";
import { EXIT, UsageError } from "./errors.ts";
import { openWorkspace } from "./workspace.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of `replio tool`. */
export interface ToolCommandOptions {
  yes?: boolean;
  no?: boolean;
  json?: boolean;
  mode?: string;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/**
 * Runs the tool; exit 0 ok, 1 tool error (an unknown tool too), 2 bad JSON or arguments that do
 * not fit the tool's schema, 3 denied or declined.
 */
export async function runToolCommand(
  name: string,
  json: string,
  options: ToolCommandOptions,
): Promise<number> {
  const args = parseToolArguments(name, json);
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    throw new UsageError(
      `Cannot use ${json} as arguments: pass one JSON object, e.g. '{"path":"README.md"}'`,
    );
  }
  // No waiting for MCP servers up front: most calls are to built-in tools, and a call to an MCP
  // tool waits for its server below, not for a slow or hanging other one.
  const ws = await openWorkspace({ ...options, headless: options, mcpWait: 0 });
  await ws.mcp?.untilRegistered(name);
  const found = ws.registry.lookup(name);
  // An unknown name is reported by the call itself (exit 1, the available tools on stdout).
  if (found) checkArguments(ws.registry, name, args);
  const canonical = found?.tool.name ?? name;
  const permissions: PermissionRecord[] = [];
  const controller = new AbortController();
  const cancelOnSignal = handleSignals(["SIGINT"], () => controller.abort());
  try {
    const outcome = await invokeTool({
      registry: ws.registry,
      policy: ws.policy,
      ctx: createToolContext({
        config: ws.config,
        worktree: ws.worktree,
        signal: controller.signal,
      }),
      sink: new CollectingSink(),
      audit: (record) => permissions.push(record),
    }, { id: "cli_1", name, arguments: args });
    const refusal = permissions.findLast((p): p is Refused =>
      p.decision === "denied" || p.decision === "declined"
    );
    if (options.json) {
      const text = JSON.stringify({
        tool: canonical,
        output: outcome.output,
        is_error: outcome.isError,
        decision: outcome.decision,
        isolation: outcome.isolation,
        permissions,
      });
      await writeText(Deno.stdout, text + "\n");
    } else if (controller.signal.aborted) {
      // The result says "cancelled by the user" to a model; the person pressed Ctrl-C.
      await writeText(Deno.stderr, `replio tool: cancelled: ${canonical} was stopped (Ctrl-C)\n`);
    } else if (refusal) {
      // The result is written for a model ("continue without it"); the person gets what
      // happened and what they can do, from the decision and its reason.
      const { what, fix } = explainRefusal(refusal, "tool");
      await writeText(Deno.stderr, `replio tool: ${what}${fix ? `: ${fix}` : ""}\n`);
    } else {
      await writeText(
        Deno.stdout,
        outcome.output.endsWith("\n") ? outcome.output : outcome.output + "\n",
      );
    }
    if (controller.signal.aborted) return EXIT.cancelled;
    if (outcome.decision === "denied" || outcome.decision === "declined") return EXIT.denied;
    return outcome.isError ? EXIT.failed : EXIT.ok;
  } finally {
    cancelOnSignal[Symbol.dispose]();
  }
}

/** A permission record of a call that did not run: the policy's or a person's no. */
type Refused = PermissionRecord & { decision: "denied" | "declined" };

/** The check the call makes, done first: arguments that cannot fit the schema are a usage error. */
function checkArguments(registry: ToolRegistry, name: string, args: unknown): void {
  try {
    registry.prepare(name, args);
  } catch (error) {
    if (!(error instanceof ToolCallError)) throw error;
    throw new UsageError(
      `Cannot run "${name}": ${error.message.replace(/: see the tool's parameters.*$/, "")}: ` +
        "`replio tools --json` lists every tool's parameters",
    );
  }
}

async function writeText(file: typeof Deno.stdout, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** A tool's arguments as typed on the command line; bad JSON is a usage error (exit 2). */
export function parseToolArguments(name: string, json: string): unknown {
  try {
    return JSON.parse(json);
  } catch (error) {
    throw new UsageError(
      `Cannot parse the arguments of "${name}": ${
        (error as Error).message
      }: pass one JSON object, e.g. '{"path":"README.md"}'`,
    );
  }
}
