import assert from "node:assert/strict";
import type { TurnResult } from "../engine/mod.ts";
import { type ChatRequest, parseChatRequest } from "./chat_request.ts";
import { ChatStreamSink } from "./chat_stream_sink.ts";

function chatRequest(): ChatRequest {
  return parseChatRequest({
    model: "replio/default",
    messages: [{ role: "user", content: "hi" }],
  }, { modes: ["default"], agentTypes: [] });
}

function turnResult(parts: Partial<TurnResult>): TurnResult {
  return {
    status: "ok",
    content: "",
    thinking: "",
    tool_calls: [],
    permissions: [],
    errors: [],
    usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    model: "m",
    session: "ses_1",
    rounds: 1,
    duration_ms: 5,
    ...parts,
  };
}

/** The stream's frames: each `data:` payload, parsed unless it is `[DONE]`. */
async function frames(sink: ChatStreamSink): Promise<unknown[]> {
  const text = await new Response(sink.body).text();
  return text.split("\n\n").filter(Boolean).map((frame) => {
    const data = frame.replace(/^data: /, "");
    return data === "[DONE]" ? data : JSON.parse(data);
  });
}

Deno.test("ChatStreamSink writes OpenAI chunks: role first, text as content, tools under replio, then [DONE]", async () => {
  const sink = new ChatStreamSink({
    request: chatRequest(),
    id: "chatcmpl-1",
    created: 7,
    onCancel() {},
  });
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
  sink.finish(turnResult({ content: "Hello" }));
  // deno-lint-ignore no-explicit-any
  const all = await frames(sink) as any[];
  assert.equal(all.at(-1), "[DONE]");
  const chunks = all.slice(0, -1);
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

Deno.test("ChatStreamSink starts each round's text on a new paragraph", async () => {
  const sink = new ChatStreamSink({ request: chatRequest(), id: "c", created: 7, onCancel() {} });
  sink.emit({ type: "text", delta: "Calling a tool." });
  sink.emit({ type: "tool_call", id: "1", name: "file_read", arguments: {}, activity: ACTIVITY });
  sink.emit({
    type: "tool_result",
    id: "1",
    name: "file_read",
    output: "x",
    is_error: false,
    is_note: false,
  });
  sink.emit({ type: "text", delta: "It says x" });
  sink.emit({ type: "text", delta: "." });
  sink.finish(turnResult({ content: "Calling a tool.It says x." }));
  // deno-lint-ignore no-explicit-any
  const chunks = (await frames(sink)).slice(0, -1) as any[];
  const content = chunks.map((c) => c.choices[0].delta.content ?? "").join("");
  assert.equal(content, "Calling a tool.\n\nIt says x.");
});

Deno.test("ChatStreamSink ends a failed turn with OpenAI's error event, no finish chunk and no [DONE]", async () => {
  const sink = new ChatStreamSink({ request: chatRequest(), id: "c", created: 7, onCancel() {} });
  sink.finish(turnResult({
    status: "error",
    errors: [{ code: "model_unreachable", message: "Cannot reach the model" }],
  }));
  // deno-lint-ignore no-explicit-any
  const all = await frames(sink) as any[];
  assert.equal(all.length, 2, "the role chunk, then the error");
  assert.deepEqual(all[1].error, {
    message: `Cannot answer: the turn failed: Cannot reach the model: see session "ses_1" ` +
      "(GET /v1/sessions/ses_1)",
    type: "server_error",
    param: null,
    code: "turn_failed",
  });
  assert.equal(all[1].replio.status, "error");
  assert.ok(all.every((f) => f !== "[DONE]" && !f.choices?.[0]?.finish_reason));
});

const ACTIVITY = { glyph: null, verb: "Read", key: "", params: {}, echo: false };
