/**
 * The OpenAI-compatible face of `replio serve` (`/v1/models`, `/v1/chat/completions`) driven by
 * the official openai SDK, as an OpenAI client uses it, and by the curl examples of docs/serve.md.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { MAX_BODY_BYTES } from "../src/serve/mod.ts";
import { refusingPort } from "./support/fault_servers.ts";
import { startMockModel } from "./support/mock_model.ts";
import { decode, openaiClient, serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

Deno.test("the openai SDK lists replio's modes and agent types as models", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const models = [];
  for await (const model of openaiClient(served).models.list()) models.push(model.id);
  assert.deepEqual(models, [
    "replio/default",
    "replio/plan",
    "replio/sandboxed",
    "replio/accept-edits",
    "replio/agent/general",
    "replio/agent/explore",
  ]);
});

Deno.test("a chat completion for replio/agent/explore runs as that agent type: its prompt, its narrower policy", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_write", arguments: { path: "b.txt", content: "y" } }] },
    { text: "I only read" },
  ]);
  await using served = await serve(wt.path, mock, { args: ["--yes"] });
  const completion = await openaiClient(served).chat.completions.create({
    model: "replio/agent/explore",
    messages: [{ role: "user", content: "write b.txt" }],
  });
  assert.equal(completion.choices[0]!.message.content, "I only read");
  const system = mock.requests[0]!.messages[0]!.content as string;
  assert.match(system, /You are a read-only exploration sub-agent/);
  const offered = (mock.requests[0]!.tools as { function: { name: string } }[] ?? [])
    .map((t) => t.function.name);
  assert.ok(offered.includes("file_read") && !offered.includes("file_write"), offered.join());
  // Even under --yes, the type's deny holds: the file was never written.
  const { replio } = completion as unknown as { replio: { tool_calls: { is_error: boolean }[] } };
  assert.equal(replio.tool_calls[0]!.is_error, true);
  assert.equal(await Deno.stat(`${wt.path}/b.txt`).catch(() => null), null);
});

const READ_THEN_ANSWER = [
  {
    toolCalls: [
      { name: "file_read", arguments: { path: "a.txt" } },
      { name: "run_command", arguments: { command: "echo hi" } },
    ],
  },
  { text: "a.txt holds x" },
];

Deno.test("the openai SDK gets replio's turn as a chat completion: file_read ran, run_command was denied headless", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel(READ_THEN_ANSWER);
  await using served = await serve(wt.path, mock);
  const completion = await openaiClient(served).chat.completions.create({
    model: "replio/default",
    messages: [{ role: "user", content: "what is in a.txt?" }],
  });
  assert.equal(completion.object, "chat.completion");
  assert.equal(completion.model, "replio/default");
  assert.deepEqual(completion.choices, [{
    index: 0,
    message: { role: "assistant", content: "a.txt holds x" },
    finish_reason: "stop",
    logprobs: null,
  }]);
  const { replio } = completion as unknown as {
    replio: { status: string; tool_calls: { name: string; output: string; is_error: boolean }[] };
  };
  assert.equal(replio.status, "ok");
  assert.deepEqual(
    replio.tool_calls.map(({ name, output, is_error }) => ({ name, output, is_error })),
    [
      { name: "file_read", output: "# a.txt - 1 line, 2 chars\n1\tx", is_error: false },
      {
        name: "run_command",
        output:
          "Error: run_command needs confirmation (tool_permission.bash) and this headless run " +
          "cannot ask: it was denied; continue without it (the operator can rerun with --yes)",
        is_error: true,
      },
    ],
  );
  assert.equal(mock.requests[0]!.messages.at(-1)!.content, "what is in a.txt?");
  assert.deepEqual(mock.violations, []);
});

Deno.test("the openai SDK streams replio's turn: content deltas, tool activity in the replio field", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel(READ_THEN_ANSWER);
  await using served = await serve(wt.path, mock);
  const stream = await openaiClient(served).chat.completions.create({
    model: "replio/plan",
    messages: [
      { role: "system", content: "Answer briefly." },
      { role: "user", content: "what is in a.txt?" },
    ],
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = "";
  const events: { type: string; name?: string; decision?: string }[] = [];
  const finishes: (string | null)[] = [];
  let usage: unknown = null;
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    const choice = chunk.choices[0];
    content += choice?.delta.content ?? "";
    if (choice?.finish_reason) finishes.push(choice.finish_reason);
    const event = (chunk as unknown as { replio?: { event?: (typeof events)[0] } }).replio?.event;
    if (event) events.push(event);
    if (chunk.usage) usage = chunk.usage;
  }
  assert.equal(content, "a.txt holds x");
  assert.deepEqual(finishes, ["stop"]);
  assert.deepEqual(events.map((e) => [e.type, e.name ?? e.decision ?? ""]), [
    ["tool_call", "file_read"],
    ["permission", "granted"],
    ["tool_result", "file_read"],
    ["tool_call", "run_command"],
    ["permission", "denied"],
    ["tool_result", "run_command"],
  ]);
  assert.ok(usage !== null, "include_usage gives a usage chunk");
  // The mode named by the model decides: plan mode hides run_command from the model.
  const offered = (mock.requests[0]!.tools as { function: { name: string } }[] ?? [])
    .map((t) => t.function.name);
  assert.ok(offered.includes("file_read") && !offered.includes("run_command"));
  assert.match(
    mock.requests[0]!.messages.at(-1)!.content as string,
    /\[system\]\nAnswer briefly\./,
  );
});

Deno.test("the openai SDK gets 413 for an oversized chat body and 404 for an unknown model", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const client = openaiClient(served);
  const tooBig = await client.chat.completions.create({
    model: "replio/default",
    messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES) }],
  }).catch((error: unknown) => error);
  assert.ok(tooBig instanceof OpenAI.APIError, String(tooBig));
  assert.equal(tooBig.status, 413);
  const unknown = await client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "hi" }],
  }).catch((error: unknown) => error);
  assert.ok(unknown instanceof OpenAI.APIError);
  assert.equal(unknown.status, 404);
  assert.match(
    unknown.message,
    /Cannot use model "gpt-4o": replio serves "replio\/default", "replio\/plan", .*"replio\/agent\/general"/,
  );
  assert.equal(mock.requests.length, 0);
});

/** The `sh` and `json` blocks of one `## ` section of docs/serve.md, in order. */
async function docExamples(heading: string): Promise<{ lang: string; text: string }[]> {
  const page = await Deno.readTextFile(new URL("../docs/serve.md", import.meta.url));
  const section = page.split(/^## /m).find((s) => s.startsWith(heading)) ?? "";
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    lang: m[1]!,
    text: m[2]!,
  }));
}

Deno.test("docs/serve.md's curl examples of the OpenAI-compatible endpoints run as shown", async () => {
  await using wt = await tempWorktree({ "README.md": "# Demo\n" });
  await using mock = startMockModel([
    { toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }] },
    { text: "It is a demo." },
  ]);
  await using served = await serve(wt.path, mock);
  const examples = await docExamples("OpenAI-compatible");
  const commands = examples.filter((e) => e.lang === "sh");
  assert.equal(commands.length, 3);
  for (const { text } of commands) {
    const shown = examples[examples.findIndex((e) => e.text === text) + 1]!;
    assert.equal(shown.lang, "json");
    const documented = JSON.parse(shown.text);
    const run = await new Deno.Command("sh", {
      args: ["-c", text],
      env: { U: served.base },
    }).output();
    assert.equal(run.code, 0, decode(run.stderr));
    const got = JSON.parse(decode(run.stdout));
    assert.deepEqual(Object.keys(got), Object.keys(documented), text);
    if (got.object === "list") {
      assert.deepEqual(
        got.data.map((m: { id: string }) => m.id),
        documented.data.map((m: { id: string }) => m.id),
      );
    } else if (got.object === "model") {
      assert.deepEqual({ ...got, created: 0 }, { ...documented, created: 0 });
    } else {
      assert.deepEqual(got.choices, documented.choices);
      assert.deepEqual(Object.keys(got.replio), Object.keys(documented.replio));
      assert.deepEqual(got.replio.tool_calls[0].output, documented.replio.tool_calls[0].output);
    }
  }
});

const HI = [{ role: "user" as const, content: "hi" }];

Deno.test("the openai SDK raises a streamed completion whose model is unreachable as an APIError with OpenAI's type and code", async () => {
  await using wt = await tempWorktree();
  // Nothing listens there: the turn fails at once (a refused local port is not retried).
  await using served = await serve(wt.path, { baseUrl: `http://127.0.0.1:${refusingPort()}/v1` });
  const client = openaiClient(served);
  const stream = await client.chat.completions.create({
    model: "replio/default",
    messages: HI,
    stream: true,
  });
  let content = "";
  const failure = await (async () => {
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
  })().then(() => null, (error: unknown) => error);
  assert.ok(failure instanceof OpenAI.APIError, `an empty success instead: ${String(failure)}`);
  assert.deepEqual([failure.status, failure.type, failure.code, failure.param], [
    undefined,
    "server_error",
    "turn_failed",
    null,
  ]);
  assert.match(
    failure.message,
    /^Cannot answer: the turn failed: .*127\.0\.0\.1.*: see session "ses_[^"]+" \(GET \/v1\/sessions\/ses_/,
  );
  assert.equal(content, "");

  // The same failure unstreamed: a 502 with the same error object.
  const plain = await client.chat.completions.create({ model: "replio/default", messages: HI })
    .catch((error: unknown) => error);
  assert.ok(plain instanceof OpenAI.InternalServerError, String(plain));
  assert.deepEqual([plain.status, plain.type, plain.code, plain.param], [
    502,
    "server_error",
    "turn_failed",
    null,
  ]);
});

Deno.test("the openai SDK retrieves one model by id, escaped or not, and gets model_not_found for another", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const client = openaiClient(served);
  const explore = await client.models.retrieve("replio/agent/explore");
  assert.deepEqual({ ...explore, created: 0 }, {
    id: "replio/agent/explore",
    object: "model",
    created: 0,
    owned_by: "replio",
  });
  // curl users write the slashes as they are.
  const raw = await fetch(`${served.base}/v1/models/replio/plan`);
  assert.equal(raw.status, 200);
  assert.equal((await raw.json()).id, "replio/plan");
  const unknown = await client.models.retrieve("gpt-4o").catch((error: unknown) => error);
  assert.ok(unknown instanceof OpenAI.NotFoundError, String(unknown));
  assert.deepEqual([unknown.type, unknown.code, unknown.param], [
    "invalid_request_error",
    "model_not_found",
    "model",
  ]);
});

Deno.test("a chat completion separates the text of the turn's rounds, streamed or not", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  const rounds = [
    { text: "Calling a tool.", toolCalls: [{ name: "file_read", arguments: { path: "a.txt" } }] },
    { text: "TOOL RESULT: x" },
  ];
  await using mock = startMockModel([...rounds, ...rounds]);
  await using served = await serve(wt.path, mock);
  const client = openaiClient(served);
  const whole = await client.chat.completions.create({ model: "replio/default", messages: HI });
  assert.equal(whole.choices[0]!.message.content, "Calling a tool.\n\nTOOL RESULT: x");
  const stream = await client.chat.completions.create({
    model: "replio/default",
    messages: HI,
    stream: true,
  });
  let streamed = "";
  for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
  assert.equal(streamed, "Calling a tool.\n\nTOOL RESULT: x");
});

Deno.test("the openai SDK gets 400 naming the field for a request's own tools or n above 1, and no turn runs", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "one answer" }]);
  await using served = await serve(wt.path, mock);
  const client = openaiClient(served);
  const refused = async (extra: Record<string, unknown>) => {
    const error = await client.chat.completions.create({
      model: "replio/default",
      messages: HI,
      ...extra,
    }).catch((error: unknown) => error);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    return { code: error.code, param: error.param, type: error.type, message: error.message };
  };
  const tools = [{ type: "function", function: { name: "get_weather", parameters: {} } }];
  const withTools = await refused({ tools });
  assert.deepEqual([withTools.code, withTools.param, withTools.type], [
    "unsupported_parameter",
    "tools",
    "invalid_request_error",
  ]);
  assert.match(withTools.message, /replio runs its own tools .* leave "tools" out/);
  const several = await refused({ n: 2 });
  assert.deepEqual([several.code, several.param], ["unsupported_value", "n"]);
  assert.match(several.message, /^400 Cannot give 2 answers \("n": 2\): /);
  assert.equal(mock.requests.length, 0, "no turn ran");
  // Control: the same request without them is answered.
  const answered = await client.chat.completions.create({
    model: "replio/default",
    messages: HI,
    n: 1,
  });
  assert.equal(answered.choices[0]!.message.content, "one answer");
});

Deno.test("a streamed completion cut off by the server's shutdown raises shutting_down, not a partial answer", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{
    text: "partial words then silence",
    fault: "hang",
    faultAfter: 3,
  }]);
  await using served = await serve(wt.path, mock);
  const stream = await openaiClient(served).chat.completions.create({
    model: "replio/default",
    messages: HI,
    stream: true,
  });
  let content = "";
  const read = (async () => {
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? "";
  })().then(() => null, (error: unknown) => error);
  await mock.waitForExchange(0);
  const ended = await served.stop("SIGTERM");
  assert.equal(ended.code, 0, ended.stderr);
  const failure = await read;
  assert.ok(failure instanceof OpenAI.APIError, `a partial success instead: "${content}"`);
  assert.deepEqual([failure.type, failure.code], ["server_error", "shutting_down"]);
  assert.match(failure.message, /^Cannot finish the answer: the server is shutting down/);
});
