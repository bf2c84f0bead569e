import assert from "node:assert/strict";
import { ChatStreamSink, parseChatRequest } from "./chat_completions.ts";
import { HttpError } from "./http_error.ts";

const SOURCES = { modes: ["default", "plan"], agentTypes: ["explore"] };

function refusal(body: Record<string, unknown>): { status: number; message: string } {
  try {
    parseChatRequest(body, SOURCES);
  } catch (error) {
    assert.ok(error instanceof HttpError);
    return { status: error.status, message: error.message };
  }
  return assert.fail("expected a refusal");
}

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

Deno.test("ChatStreamSink writes OpenAI chunks: role first, text as content, tools under replio, then [DONE]", async () => {
  const request = parseChatRequest({
    model: "replio/default",
    messages: [{ role: "user", content: "hi" }],
  }, SOURCES);
  const sink = new ChatStreamSink({ request, id: "chatcmpl-1", created: 7, onCancel() {} });
  sink.emit({ type: "text", delta: "Hel" });
  sink.emit({ type: "thinking", delta: "hidden" });
  sink.emit({
    type: "permission",
    tool: "file_read",
    action: "allow",
    decision: "granted",
    reason: "r",
  });
  sink.emit({ type: "text", delta: "lo" });
  sink.finish({
    status: "ok",
    content: "Hello",
    thinking: "",
    tool_calls: [],
    permissions: [],
    errors: [],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    model: "m",
    session: "ses_1",
    rounds: 1,
    duration_ms: 5,
  });
  const frames = (await new Response(sink.body).text()).split("\n\n").filter(Boolean);
  assert.equal(frames.at(-1), "data: [DONE]");
  const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.replace(/^data: /, "")));
  assert.deepEqual(chunks.map((c) => c.choices[0].delta), [
    { role: "assistant", content: "" },
    { content: "Hel" },
    {},
    { content: "lo" },
    {},
  ]);
  assert.deepEqual(chunks[2].replio.event, {
    type: "permission",
    tool: "file_read",
    action: "allow",
    decision: "granted",
    reason: "r",
  });
  assert.equal(chunks[4].choices[0].finish_reason, "stop");
  assert.equal(chunks[4].replio.session, "ses_1");
  for (const chunk of chunks) {
    assert.deepEqual([chunk.id, chunk.object, chunk.model], [
      "chatcmpl-1",
      "chat.completion.chunk",
      "replio/default",
    ]);
  }
});
