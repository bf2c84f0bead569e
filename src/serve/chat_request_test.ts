import assert from "node:assert/strict";
import { findModel, parseChatRequest } from "./chat_request.ts";
import { HttpError } from "./http_error.ts";

const SOURCES = { modes: ["default", "plan"], agentTypes: ["explore"] };

function refusal(body: Record<string, unknown>): { status: number; message: string } {
  const { status, message } = refusalOf(() => parseChatRequest(body, SOURCES));
  return { status, message };
}

function refusalOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof HttpError);
    const { status, code, type, param, message } = error;
    return { status, code, type, param, message };
  }
  return assert.fail("expected a refusal");
}

const HI = [{ role: "user", content: "hi" }];

Deno.test("parseChatRequest maps a mode model and an agent type model", () => {
  const messages = [{ role: "user", content: "hi" }];
  assert.deepEqual(parseChatRequest({ model: "replio/plan", messages }, SOURCES), {
    model: "replio/plan",
    mode: "plan",
    prompt: "hi",
    stream: false,
    includeUsage: false,
  });
  assert.deepEqual(
    parseChatRequest({
      model: "replio/agent/explore",
      messages,
      stream: true,
      stream_options: { include_usage: true },
      replio: { session: "ses_a" },
    }, SOURCES),
    {
      model: "replio/agent/explore",
      agentType: "explore",
      prompt: "hi",
      stream: true,
      includeUsage: true,
      session: "ses_a",
    },
  );
});

Deno.test("parseChatRequest quotes earlier messages before the last user message", () => {
  const request = parseChatRequest({
    model: "replio/default",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "What is 2+2?" }] },
      { role: "assistant", content: "4" },
      { role: "user", content: "And 3+3?" },
    ],
  }, SOURCES);
  assert.equal(
    request.prompt,
    "The conversation so far, as the client sent it:\n\n[system]\nBe brief.\n\n" +
      "[user]\nWhat is 2+2?\n\n[assistant]\n4\n\n[user]\nAnd 3+3?",
  );
});

Deno.test("parseChatRequest refuses unknown models and requests without a final user message", () => {
  assert.deepEqual(refusal({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }), {
    status: 404,
    message: `Cannot use model "gpt-4o": replio serves "replio/default", "replio/plan", ` +
      `"replio/agent/explore": pick one (GET /v1/models lists them)`,
  });
  assert.deepEqual(refusal({ model: "replio/default", messages: [] }), {
    status: 400,
    message: `Cannot read "messages": expected a non-empty array: ` +
      `send [{"role": "user", "content": "..."}]`,
  });
  assert.deepEqual(
    refusal({ model: "replio/default", messages: [{ role: "assistant", content: "hi" }] }),
    {
      status: 400,
      message: `Cannot start a turn: the last message must be a user message with text, got ` +
        `role "assistant": end "messages" with the user's request`,
    },
  );
});

Deno.test("parseChatRequest refuses the client's own tools and more than one answer, naming the field", () => {
  const parse = (extra: Record<string, unknown>) =>
    refusalOf(() => parseChatRequest({ model: "replio/default", messages: HI, ...extra }, SOURCES));
  const tool = { type: "function", function: { name: "get_weather", parameters: {} } };
  assert.deepEqual(parse({ tools: [tool] }), {
    status: 400,
    code: "unsupported_parameter",
    type: "invalid_request_error",
    param: "tools",
    message: `Cannot use "tools": replio runs its own tools (GET /v1/tools lists them) and never ` +
      `hands a tool call back to the client: leave "tools" out, or send the request to the ` +
      "model behind replio",
  });
  assert.equal(parse({ functions: [tool.function] }).param, "functions");
  assert.deepEqual(parse({ tool_choice: "required" }).param, "tool_choice");
  assert.deepEqual(parse({ n: 3 }), {
    status: 400,
    code: "unsupported_value",
    type: "invalid_request_error",
    param: "n",
    message: `Cannot give 3 answers ("n": 3): a replio turn runs tools and may change files, so ` +
      `each request runs one turn with one answer: send "n": 1 or leave it out, and repeat the ` +
      "request for another answer",
  });
  assert.deepEqual(parse({ n: 0 }).code, "invalid_value");
  assert.deepEqual(parse({ n: "2" }).code, "invalid_value");
  // Control: what a turn can honour passes, the empty forms included.
  for (const extra of [{ n: 1 }, { n: null }, { tools: [] }, { tool_choice: "auto" }]) {
    assert.equal(
      parseChatRequest({ model: "replio/default", messages: HI, ...extra }, SOURCES).prompt,
      "hi",
    );
  }
});

Deno.test("findModel returns one model and refuses an unknown one with param model", () => {
  assert.deepEqual(findModel(SOURCES, "replio/agent/explore", 7), {
    id: "replio/agent/explore",
    object: "model",
    created: 7,
    owned_by: "replio",
  });
  assert.deepEqual(refusalOf(() => findModel(SOURCES, "gpt-4o", 7)), {
    status: 404,
    code: "model_not_found",
    type: "invalid_request_error",
    param: "model",
    message: `Cannot use model "gpt-4o": replio serves "replio/default", "replio/plan", ` +
      `"replio/agent/explore": pick one (GET /v1/models lists them)`,
  });
});
