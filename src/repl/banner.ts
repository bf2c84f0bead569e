/**
 * What the REPL says as it opens: the banner (version, model, mode, worktree, warnings, where
 * help is) and, for a continued session, its last exchanges, so the next message has its
 * context.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ReplContext } from "./context.ts";
import { recentExchanges } from "./recent_exchanges.ts";
import { printDamage } from "./session_damage.ts";
import { formatTurns } from "./session_commands.ts";

/** A resumed session re-prints this many exchanges, each cut to a few lines. */
const RECENT_EXCHANGES = 2;
const PROMPT_PREVIEW_LINES = 3;
const ANSWER_PREVIEW_LINES = 12;

const WITHOUT_MODEL = "/tool and /help work without a model";
const NO_MODEL_HINT = "Set one with /config base_url http://HOST:PORT/v1 and /config model NAME " +
  `(or OPENAI_BASE_URL); ${WITHOUT_MODEL}`;

/** Prints the banner; `notices` are the start-up warnings. */
export function printBanner(
  repl: ReplContext,
  opening: { version: string; notices: readonly string[] },
): void {
  const s = repl.styles;
  const model = repl.model ? `model ${repl.model}` : s.yellow("no model configured");
  repl.print(`${s.bold(`replio ${opening.version}`)} · ${model} · mode ${repl.policy.mode}`);
  repl.print(`worktree ${repl.worktree}`, s.dim);
  if (repl.session.turns > 0) {
    repl.print(
      `continuing session ${repl.session.id} (${formatTurns(repl.session.turns)})`,
      s.dim,
    );
    printRecent(repl);
  }
  printDamage(repl);
  for (const notice of opening.notices) repl.print(`warning: ${notice}`, s.yellow);
  if (!repl.model) {
    repl.print(repl.modelProblem, s.dim);
    repl.print(noModelHint(repl.config), s.dim);
  }
  repl.print("/help for commands · Ctrl-C or Esc cancels · Ctrl-D quits", s.dim);
}

/** Re-prints the last exchanges of the session (after resuming or loading one). */
export function printRecent(repl: ReplContext): void {
  const s = repl.styles;
  for (const exchange of recentExchanges(repl.session.history(), RECENT_EXCHANGES)) {
    repl.print(`> ${firstLines(exchange.prompt, PROMPT_PREVIEW_LINES)}`, s.cyan, "    ");
    const tools = exchange.toolCalls
      ? s.dim(`(${exchange.toolCalls} tool call${exchange.toolCalls === 1 ? "" : "s"}) `)
      : "";
    if (tools) repl.print(tools);
    if (exchange.answer) repl.printMarkdown(firstLines(exchange.answer, ANSWER_PREVIEW_LINES));
  }
  // A failed turn's prompt is kept in the session, not in the history: show it, unanswered.
  const unanswered = repl.session.unansweredPrompt;
  if (unanswered !== null) {
    repl.print(`> ${firstLines(unanswered, PROMPT_PREVIEW_LINES)}`, s.cyan, "    ");
    repl.print("(no reply: send it again to retry)", s.dim);
  }
}

/**
 * What to do without a model. With a server configured the problem's own fix says it (the
 * key, the network, the page that answered); naming base_url or model again would mislead.
 */
export function noModelHint(config: Config): string {
  return config.get("base_url") ? WITHOUT_MODEL : NO_MODEL_HINT;
}

/** The first `count` lines of `text`, with a mark when some were left out. */
function firstLines(text: string, count: number): string {
  const lines = text.trim().split("\n");
  return lines.length <= count
    ? lines.join("\n")
    : `${lines.slice(0, count).join("\n")}\n… (${lines.length - count} more lines)`;
}
