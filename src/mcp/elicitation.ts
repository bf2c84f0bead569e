/**
 * An MCP server's form (`elicitation/create`, form mode) put to the person the way the `ask`
 * tool asks: first whether to fill it in, then each field in turn with its kind and default,
 * each answer checked against the requested schema. No one to answer (a headless run) is a
 * decline whose reason the model reads with the call's result.
 * @module
 */
import type { AskAnswer, AskRequest } from "../tools/types.ts";
import type { ElicitRequestFormParams, ElicitResult } from "./_sdk_requests.ts";
import {
  describeField,
  fieldChoices,
  type FieldSchema,
  type FieldValue,
  readField,
} from "./elicitation_field.ts";

/** The first question's answers. */
const FILL = "fill in the form";
const DECLINE = "decline";
const CANCEL = "cancel";

/** What a form came to: the reply to the server, and a line for the model when it was refused. */
export interface FormOutcome {
  result: ElicitResult;
  note?: string;
}

/** What {@link fillForm} needs. */
export interface FormOptions {
  /** The server's name in `mcp_servers`. */
  server: string;
  /** The call's person: the terminal, the lead agent's person, or no one (null). */
  ask: (request: AskRequest) => Promise<AskAnswer>;
  /** The call's signal: aborted when the person cancelled the turn at a question. */
  signal: AbortSignal;
  /**
   * False in a headless run: the form is declined without asking, since `ask` there may reach
   * a lead agent's model (a sub-agent's question), and a form is for a person.
   */
  hasPerson: boolean;
}

/** Puts a server's form to the person, field by field; see the module doc. */
export async function fillForm(
  params: ElicitRequestFormParams,
  options: FormOptions,
): Promise<FormOutcome> {
  const { server, ask, signal } = options;
  if (!options.hasPerson) return nobodyAnswered(server, params.message, signal);
  const fields = Object.entries(params.requestedSchema.properties) as [string, FieldSchema][];
  const required = new Set(params.requestedSchema.required ?? []);
  const choice = await askUntil(ask, {
    question: `MCP server "${server}" asks: ${params.message}`,
    context: `Its form has ${fields.length === 1 ? "1 field" : `${fields.length} fields`}: ${
      fields.map(([name, schema]) => `${schema.title ?? name} (${fieldKind(schema)})`).join(", ")
    }`,
    options: [FILL, DECLINE, CANCEL],
    target: "human",
  }, (answer) => firstAnswer(answer));
  if (choice === null) return nobodyAnswered(server, params.message, signal);
  if (choice === DECLINE) {
    return {
      result: { action: "decline" },
      note: `The user declined the request for input of MCP server "${server}" ` +
        `("${params.message}"): do not ask for it again through that tool`,
    };
  }
  if (choice === CANCEL) return { result: { action: "cancel" } };
  const content: Record<string, FieldValue> = {};
  for (const [name, schema] of fields) {
    const isRequired = required.has(name);
    let problem = "";
    const value = await askUntil(ask, {
      question: `${schema.title ?? name}${schema.description ? `: ${schema.description}` : ""}`,
      get context() {
        const wants = describeField(schema, isRequired);
        return problem ? `${problem}: give ${wants}` : `Give ${wants}`;
      },
      ...(fieldChoices(schema) ? { options: fieldChoices(schema)!.map((c) => c.title) } : {}),
      ...(schema.type === "boolean" ? { options: ["yes", "no"] } : {}),
      target: "human",
    }, (answer) => {
      const reading = readField(schema, answer, isRequired);
      if (reading.ok) return { value: reading.value };
      problem = reading.problem;
      return undefined;
    });
    if (value === null) return nobodyAnswered(server, params.message, signal);
    if (value.value !== undefined) content[name] = value.value;
  }
  return { result: { action: "accept", content } };
}

/** The field's kind in a word or two, for the form's overview. */
function fieldKind(schema: FieldSchema): string {
  if (schema.type === "array") return "choices";
  if (fieldChoices(schema)) return "choice";
  return { string: "text", number: "number", integer: "whole number", boolean: "yes/no" }[
    schema.type
  ];
}

/** The first question's answer: Enter fills in; a choice by its number, or its first letters. */
function firstAnswer(answer: string): string | undefined {
  const choices = [FILL, DECLINE, CANCEL];
  const lower = answer.trim().toLowerCase();
  if (lower === "") return FILL;
  return choices[Number(lower) - 1] ?? choices.find((option) => option.startsWith(lower));
}

/**
 * Asks until `read` accepts the answer (it returns undefined for one it does not); null when no
 * one answers. Only a person answers again, so a wrong answer cannot loop without them.
 */
async function askUntil<T>(
  ask: (request: AskRequest) => Promise<AskAnswer>,
  request: AskRequest,
  read: (answer: string) => T | undefined,
): Promise<T | null> {
  for (;;) {
    // Spread anew each time: a field's context getter says what was wrong with the last answer.
    const answer = await ask({ ...request });
    if (answer === null) return null;
    const value = read(answer);
    if (value !== undefined) return value;
  }
}

/** Nobody answered: the person cancelled the turn (Ctrl-C), or no one can answer here. */
function nobodyAnswered(server: string, message: string, signal: AbortSignal): FormOutcome {
  if (signal.aborted) return { result: { action: "cancel" } };
  return {
    result: { action: "decline" },
    note: `replio declined the request for input of MCP server "${server}" ("${message}"): ` +
      `no person can answer in this run: if the information is needed, ask the user for it in ` +
      `your answer`,
  };
}
