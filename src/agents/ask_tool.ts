/**
 * The `ask` core tool (spec/tools.md §Asking the human or the lead): routes a question through
 * `ctx.ask`, which the host wires to the terminal, the lead agent, or no one.
 * @module
 */
import { Type } from "../schema/type.ts";
import { defineTool } from "../plugins/api.ts";
import DESCRIPTION from "./ask.md" with { type: "text" };

const parameters = Type.Object({
  question: Type.String({ description: "The question to ask", minLength: 1 }),
  context: Type.Optional(Type.String({ description: "Why you ask: what you found so far" })),
  options: Type.Optional(Type.Array(Type.String(), { description: "Suggested answers" })),
  target: Type.Optional(
    Type.Union([Type.Literal("human"), Type.Literal("lead")], {
      description: "Who answers: the operator (human, default) or the delegating agent (lead)",
      default: "human",
    }),
  ),
});

/** The ask tool. */
export const askTool = defineTool({
  name: "ask",
  description: DESCRIPTION,
  parameters,
  category: "ask",
  permission: "ask",
  deno: {},
  keyArg: "question",
  short: "Ask the human or the lead agent for a decision",
}, async ({ question, context, options, target }: {
  question: string;
  context?: string;
  options?: string[];
  target?: "human" | "lead";
}, ctx) => {
  const answer = await ctx.ask({
    question,
    target: target ?? "human",
    ...(context ? { context } : {}),
    ...(options?.length ? { options } : {}),
  });
  if (answer === null) {
    // Thrown, not returned: failure is a flag the registry sets, never read from the text.
    throw new Error(
      "ask has no one to answer (no terminal and no lead agent in this run): " +
        "decide yourself, state your assumption in your answer, and continue",
    );
  }
  return answer;
});
