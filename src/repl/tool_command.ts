/**
 * `/tool <name> {json}`: one tool call through the same policy and invoke pipeline as the
 * model's calls and `replio tool`, rendered by the terminal sink; it needs no model.
 * @module
 */
import { sessionOutputStore } from "../session/mod.ts";
import { createToolContext, invokeTool, OUTPUT_STORE_SERVICE } from "../tools/mod.ts";
import type { SlashCommand } from "./context.ts";
import { splitFirst } from "./slash.ts";

/** Call ids of `/tool` runs, numbered for the session audit. */
let callNumber = 0;

/** `/tool <name> {json}`. */
export const toolCommand: SlashCommand = {
  name: "tool",
  usage: "/tool <name> {json}",
  summary: "Run one tool through the policy (works without a model)",
  complete: (repl) => repl.registry.list().map((t) => t.name),
  async run(repl, args) {
    const [name, json] = splitFirst(args);
    if (!name) {
      repl.printError(`Cannot run /tool: no tool named: use /tool <name> {"key": "value"}`);
      return;
    }
    let parsed: unknown = {};
    if (json) {
      try {
        parsed = JSON.parse(json);
      } catch (error) {
        repl.printError(
          `Cannot parse the arguments of "${name}": ${
            (error as SyntaxError).message
          }: pass one JSON object, e.g. {"path": "README.md"}`,
        );
        return;
      }
    }
    const echoes = repl.registry.lookup(name)?.tool.echo ?? false;
    repl.sink.beginTurn();
    const outcome = await repl.cancellable((signal) =>
      invokeTool({
        registry: repl.registry,
        policy: repl.policy,
        ctx: createToolContext({
          config: repl.config,
          worktree: repl.worktree,
          signal,
          ask: (request) => repl.sink.ask(request),
          // A cut result is kept like the model's, for /output and tool_output.
          services: {
            [OUTPUT_STORE_SERVICE]: sessionOutputStore(repl.worktree, repl.session.id, repl.config),
          },
        }),
        sink: repl.sink,
        audit: (record) => repl.session.appendPermission(record),
      }, { id: `repl_${++callNumber}`, name, arguments: parsed })
    );
    repl.sink.settle();
    // Errors and notes were shown by the sink, and echoing tools printed their output already.
    const isNote = !outcome.isError && repl.registry.lookup(name)?.tool.note?.(outcome.output);
    if (outcome.isError) {
      const rest = outcome.output.split("\n").slice(1).join("\n").trim();
      if (rest) repl.print(rest, repl.styles.dim);
    } else if (!isNote && !(echoes && repl.config.get("tool_status_visible"))) {
      repl.print(outcome.output.replace(/\n$/, ""));
    }
  },
};
