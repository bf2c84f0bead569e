/**
 * The ToolRegistry: the single dispatch point (spec/tools.md §Registration metadata). The loop,
 * `/tool` and `replio tool` all call through it; nothing else branches on a tool name.
 * @module
 */
import { capResult, capResultKept } from "./cap_result.ts";
import { OUTPUT_STORE_SERVICE, type OutputStore } from "./output_store.ts";
import type { Tool, ToolArgs, ToolContext, ToolHandler, ToolSchema, ToolSpec } from "./types.ts";
import { validateArgs } from "./validate_args.ts";

/** A call ready to run: the tool and its cleaned, validated arguments. */
export interface PreparedCall {
  tool: Tool;
  args: ToolArgs;
}

/**
 * A tool result. `isError` is a flag carried with the result (a thrown error, a refusal, an MCP
 * server's `isError`), never read from the text: a tool may well succeed with "Error: …".
 */
export interface ToolResult {
  output: string;
  isError: boolean;
}

/** Raised by {@link ToolRegistry.prepare}; its message is the `Error:` text the model gets. */
export class ToolCallError extends Error {
  override name = "ToolCallError";
}

/** Holds the registered tools and runs them. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #aliases = new Map<string, { tool: string; args: ToolArgs }>();

  /** Registers a tool; a name or alias already taken is a programming error. */
  register<S extends ToolSpec>(spec: S, handler: ToolHandler<never>): void {
    const names = [
      spec.name,
      ...(spec.aliases ?? []).map((a) => typeof a === "string" ? a : a.name),
    ];
    for (const name of names) {
      if (this.#tools.has(name) || this.#aliases.has(name)) {
        throw new TypeError(`Cannot register tool "${spec.name}": the name "${name}" is taken`);
      }
    }
    this.#tools.set(spec.name, { ...spec, handler: handler as ToolHandler });
    for (const alias of spec.aliases ?? []) {
      const entry = typeof alias === "string" ? { name: alias, args: {} } : alias;
      this.#aliases.set(entry.name, { tool: spec.name, args: entry.args });
    }
  }

  /** The tool a name or alias refers to, with the alias's preset arguments. */
  lookup(name: string): { tool: Tool; presetArgs: ToolArgs } | undefined {
    const direct = this.#tools.get(name);
    if (direct) return { tool: direct, presetArgs: {} };
    const alias = this.#aliases.get(name);
    return alias ? { tool: this.#tools.get(alias.tool)!, presetArgs: alias.args } : undefined;
  }

  /** Registered tools (never aliases), in registration order. */
  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** The function-calling schemas of the tools `isVisible` keeps (policy: not deny). */
  schemas(isVisible: (tool: Tool) => boolean): ToolSchema[] {
    return this.list().filter(isVisible).map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }

  /**
   * Resolves the name and cleans the arguments: alias presets, parameter aliases, undeclared
   * and null arguments dropped, the rest validated. Throws {@link ToolCallError}.
   */
  prepare(name: string, rawArgs: unknown): PreparedCall {
    const found = this.lookup(name);
    if (!found) {
      const available = this.list().map((t) => t.name).join(", ");
      throw new ToolCallError(`unknown tool "${name}". Available tools: ${available}`);
    }
    const { tool, presetArgs } = found;
    if (rawArgs !== undefined && rawArgs !== null && !isRecord(rawArgs)) {
      throw new ToolCallError(
        `invalid arguments for ${tool.name}: expected a JSON object, got ${
          JSON.stringify(rawArgs)
        }`,
      );
    }
    const declared = (tool.parameters.properties ?? {}) as Record<string, unknown>;
    const cleaned: ToolArgs = {};
    for (const [key, value] of Object.entries({ ...(rawArgs ?? {}), ...presetArgs })) {
      const target = key in declared ? key : tool.paramAliases?.[key];
      if (value === null || target === undefined || !(target in declared)) continue;
      // A parameter alias never overrides the declared name or an earlier synonym.
      if (
        target !== key && (target in cleaned || (rawArgs as ToolArgs | undefined)?.[target] != null)
      ) continue;
      cleaned[target] = value;
    }
    const checked = validateArgs(tool.parameters, cleaned);
    if (!checked.ok) {
      throw new ToolCallError(
        `invalid arguments for ${tool.name}: ${checked.problems.join("; ")}: ` +
          `see the tool's parameters and call it again`,
      );
    }
    return { tool, args: checked.args };
  }

  /**
   * Runs a prepared call: a returned string is a success whatever it says, a thrown error
   * becomes an `Error: …` failure; the result is capped.
   */
  async run(call: PreparedCall, ctx: ToolContext): Promise<ToolResult> {
    const maxChars = ctx.config.get("tool_max_result_chars");
    try {
      ctx.signal.throwIfAborted();
      const output = await call.tool.handler(call.args, ctx);
      // A cut result is kept whole in the session's store, for tool_output.
      const store = ctx.services[OUTPUT_STORE_SERVICE] as OutputStore | undefined;
      return { output: capResultKept(output, maxChars, store), isError: false };
    } catch (error) {
      return { output: capResult(errorResult(error, ctx.signal), maxChars), isError: true };
    }
  }

  /** prepare + run, without policy: the registry's own contract (spec: `execute()`). */
  async execute(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
    let call: PreparedCall;
    try {
      call = this.prepare(name, rawArgs);
    } catch (error) {
      return { output: errorResult(error, ctx.signal), isError: true };
    }
    return await this.run(call, ctx);
  }
}

/**
 * The `Error: …` text for a thrown value.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(errorResult(new Error("boom"), new AbortController().signal), "Error: boom");
 * ```
 */
export function errorResult(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "Error: cancelled by the user";
  const message = error instanceof Error ? error.message : String(error);
  return `Error: ${message}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
