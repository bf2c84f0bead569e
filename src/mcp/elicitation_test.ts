import assert from "node:assert/strict";
import type { AskRequest } from "../tools/types.ts";
import { fillForm } from "./elicitation.ts";

/** A person who gives `answers` in turn (null: Ctrl-C, or no one there); records each question. */
function person(answers: (string | null)[]) {
  const asked: AskRequest[] = [];
  return {
    asked,
    ask(request: AskRequest) {
      asked.push(request);
      if (answers.length === 0) throw new Error(`no answer scripted for "${request.question}"`);
      return Promise.resolve(answers.shift()!);
    },
  };
}

/** The form of the MCP conformance scenario elicitation-sep1034-client-defaults. */
const DEFAULTS_FORM = {
  message: "Test client default value handling - please accept with defaults",
  requestedSchema: {
    type: "object" as const,
    properties: {
      name: { type: "string" as const, description: "User name", default: "John Doe" },
      age: { type: "integer" as const, description: "User age", default: 30 },
      score: { type: "number" as const, description: "User score", default: 95.5 },
      status: {
        type: "string" as const,
        description: "User status",
        enum: ["active", "inactive", "pending"],
        default: "active",
      },
      verified: { type: "boolean" as const, description: "Verification status", default: true },
    },
    required: [],
  },
};

const live = new AbortController().signal;

Deno.test("fillForm applies every default the person keeps with Enter (SEP-1034)", async () => {
  const { ask, asked } = person(["", "", "", "", "", ""]);
  assert.deepEqual(
    await fillForm(DEFAULTS_FORM, { server: "s", ask, signal: live, hasPerson: true }),
    {
      result: {
        action: "accept",
        content: { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true },
      },
    },
  );
  assert.deepEqual(asked.map((q) => [q.question, q.context, q.options]), [
    [
      'MCP server "s" asks: Test client default value handling - please accept with defaults',
      "Its form has 5 fields: name (text), age (whole number), score (number), " +
      "status (choice), verified (yes/no)",
      ["fill in the form", "decline", "cancel"],
    ],
    ["name: User name", "Give text; optional; Enter keeps the default: John Doe", undefined],
    ["age: User age", "Give a whole number; optional; Enter keeps the default: 30", undefined],
    ["score: User score", "Give a number; optional; Enter keeps the default: 95.5", undefined],
    [
      "status: User status",
      "Give one of the choices; optional; Enter keeps the default: active",
      ["active", "inactive", "pending"],
    ],
    [
      "verified: Verification status",
      "Give yes or no; optional; Enter keeps the default: yes",
      ["yes", "no"],
    ],
  ]);
});

Deno.test("fillForm asks a field again, saying what was wrong, until the answer fits the schema", async () => {
  const { ask, asked } = person(["1", "Ada", "3.5", "4", "5", "inactive", "no"]);
  const form = {
    ...DEFAULTS_FORM,
    requestedSchema: {
      ...DEFAULTS_FORM.requestedSchema,
      properties: {
        ...DEFAULTS_FORM.requestedSchema.properties,
        score: { type: "number" as const, maximum: 10 },
      },
    },
  };
  const outcome = await fillForm(form, { server: "s", ask, signal: live, hasPerson: true });
  assert.deepEqual(outcome.result, {
    action: "accept",
    content: { name: "Ada", age: 4, score: 5, status: "inactive", verified: false },
  });
  assert.equal(
    asked[3]!.context,
    "3.5 is not a whole number: give a whole number; optional; Enter keeps the default: 30",
  );
});

Deno.test("fillForm: the person declines or cancels; no one there declines with the reason for the model", async () => {
  assert.deepEqual(
    await fillForm(DEFAULTS_FORM, {
      server: "s",
      ask: person(["2"]).ask,
      signal: live,
      hasPerson: true,
    }),
    {
      result: { action: "decline" },
      note: 'The user declined the request for input of MCP server "s" ("Test client default ' +
        'value handling - please accept with defaults"): do not ask for it again through that tool',
    },
  );
  assert.deepEqual(
    await fillForm(DEFAULTS_FORM, {
      server: "s",
      ask: person(["cancel"]).ask,
      signal: live,
      hasPerson: true,
    }),
    { result: { action: "cancel" } },
  );
  const headless = await fillForm(DEFAULTS_FORM, {
    server: "s",
    ask: person([null]).ask,
    signal: live,
    hasPerson: true,
  });
  assert.equal(headless.result.action, "decline");
  assert.match(headless.note!, /: no person can answer in this run: /);
  // Headless, no one is asked at all: a sub-agent's ask would reach the lead agent's model.
  assert.deepEqual(
    await fillForm(DEFAULTS_FORM, {
      server: "s",
      ask: person([]).ask,
      signal: live,
      hasPerson: false,
    }),
    headless,
  );
  // Ctrl-C at a field cancels the turn: the form is cancelled, nothing is declined on its behalf.
  const interrupted = new AbortController();
  interrupted.abort();
  assert.deepEqual(
    await fillForm(DEFAULTS_FORM, {
      server: "s",
      ask: person(["", null]).ask,
      signal: interrupted.signal,
      hasPerson: true,
    }),
    { result: { action: "cancel" } },
  );
});
