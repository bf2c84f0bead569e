/**
 * `/help`, `/help <tool>` and `/tools`: the command table and the registry seen through the
 * current policy, so what they list is exactly what the model may call now.
 * @module
 */
import { describeSchema } from "../config/mod.ts";
import { displayWidth } from "../ui/text_width.ts";
import { type JsonSchema, summarizeTool, type Tool, toolIsolation } from "../tools/mod.ts";
import type { ReplContext, SlashCommand } from "./context.ts";

/** `/help [tool | /command]`. */
export const helpCommand: SlashCommand = {
  name: "help",
  usage: "/help [tool]",
  summary: "Commands and the tools allowed now; with a tool, its full description",
  complete: (repl) => repl.registry.list().map((t) => t.name),
  run(repl, args) {
    const topic = args.trim();
    if (!topic) return printOverview(repl);
    const found = repl.registry.lookup(topic);
    if (found) return printTool(repl, found.tool);
    const command = repl.commands.find((c) => c.name === topic.replace(/^\//, ""));
    if (command) return repl.print(`${command.usage}  ${command.summary}`);
    repl.printError(
      `Cannot show help for "${topic}": no such tool or command: run /tools for the tool names`,
    );
  },
};

/** `/tools`. */
export const toolsCommand: SlashCommand = {
  name: "tools",
  usage: "/tools",
  summary: "Every tool with category, permission and the action the policy resolves now",
  run(repl) {
    const s = repl.styles;
    const resolved = repl.registry.list().map((tool) => {
      const { action, reason, denoFlags } = repl.policy.resolveStatic(tool);
      // How calls run follows the reason: in-process, worker(…), bwrap(…) or none.
      const why = `(${reason}) [${toolIsolation(tool, repl.config, repl.worktree)}]`;
      return { tool, action, reason, why, denoFlags };
    });
    const shown = resolved.filter((r) => r.action !== "deny");
    // Tools the process cannot serve are named with the flag that would serve them.
    const unavailable = resolved.filter((r) => r.action === "deny" && r.denoFlags);
    const nameWidth = Math.max(
      4,
      ...[...shown, ...unavailable].map((r) => r.tool.name.length),
    );
    const reasonWidth = Math.max(...shown.map((r) => r.why.length));
    repl.print(`mode ${repl.policy.mode} · worktree ${repl.worktree}`, s.dim);
    for (const { tool, action, why: label } of shown) {
      const columns = `${tool.name.padEnd(nameWidth)}  ${tool.category.padEnd(8)} ${
        tool.permission.padEnd(8)
      } ${action.padEnd(5)} `;
      const why = label.padEnd(reasonWidth);
      repl.print(
        columns + s.dim(why) + "  " +
          fitSummary(summarizeTool(tool), repl.width - displayWidth(columns + why + "  ")),
      );
    }
    for (const { tool, denoFlags } of unavailable) {
      repl.print(`${tool.name.padEnd(nameWidth)}  ${s.dim(`unavailable: needs ${denoFlags}`)}`);
    }
    const hidden = resolved.filter((r) => r.action === "deny" && !r.denoFlags);
    if (hidden.length) {
      repl.print(
        `hidden by policy: ${hidden.map((h) => `${h.tool.name} (${h.reason})`).join(", ")}`,
        s.dim,
      );
    }
  },
};

/** Narrower than this, a summary is wrapped instead of cut. */
const MIN_SUMMARY_COLUMNS = 16;

/** A summary cut to `room` columns so a listing keeps one row per tool. */
function fitSummary(summary: string, room: number): string {
  if (room < MIN_SUMMARY_COLUMNS || displayWidth(summary) <= room) return summary;
  return summary.slice(0, room - 1) + "…";
}

function printOverview(repl: ReplContext): void {
  const s = repl.styles;
  repl.print("Commands", s.bold);
  const width = Math.max(...repl.commands.map((c) => c.usage.length));
  // Wrapped summaries stay in their column while the terminal leaves room for one.
  const column = 2 + width + 2;
  const hanging = " ".repeat(repl.width - column >= MIN_SUMMARY_COLUMNS ? column : 4);
  for (const command of repl.commands) {
    repl.print(`  ${command.usage.padEnd(width)}  ${s.dim(command.summary)}`, (l) => l, hanging);
  }
  const allowed = repl.registry.list().filter((tool) => repl.policy.isVisible(tool));
  repl.print(`Tools allowed now (mode ${repl.policy.mode})`, s.bold);
  const nameWidth = Math.max(4, ...allowed.map((t) => t.name.length));
  for (const tool of allowed) {
    const action = repl.policy.resolveStatic(tool).action;
    const tag = action === "ask" ? s.yellow("ask  ") : s.green("allow");
    const room = repl.width - (2 + nameWidth + 2 + 5 + 2);
    repl.print(
      `  ${tool.name.padEnd(nameWidth)}  ${tag}  ${s.dim(fitSummary(summarizeTool(tool), room))}`,
    );
  }
  repl.print(
    'Input: Tab completes, Shift+Tab switches the mode, a trailing \\ or a """ block continues ' +
      "a message, Up recalls, Ctrl-C cancels, Ctrl-D quits.",
    s.dim,
  );
}

function printTool(repl: ReplContext, tool: Tool): void {
  const s = repl.styles;
  const { action, reason } = repl.policy.resolveStatic(tool);
  const aliases = (tool.aliases ?? []).map((a) => (typeof a === "string" ? a : a.name));
  repl.print(tool.name, s.bold);
  repl.print(
    `category ${tool.category} · permission ${tool.permission} · action ${action} (${reason})`,
  );
  if (aliases.length) repl.print(`aliases ${aliases.join(", ")}`, s.dim);
  repl.print("Parameters", s.bold);
  const properties = (tool.parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((tool.parameters.required ?? []) as string[]);
  if (Object.keys(properties).length === 0) repl.print("  (none)", s.dim);
  for (const [name, schema] of Object.entries(properties)) {
    const facts = [
      describeSchema(schema),
      ...(required.has(name) ? ["required"] : []),
      ...("default" in schema ? [`default ${JSON.stringify(schema.default)}`] : []),
    ];
    repl.print(
      `  ${name} (${facts.join(", ")})  ${s.dim(String(schema.description ?? ""))}`,
      (line) => line,
      "    ",
    );
  }
  repl.print("Description", s.bold);
  repl.printMarkdown(tool.description.trim());
  repl.print(`Run it: /tool ${tool.name} {…}`, s.dim);
}
