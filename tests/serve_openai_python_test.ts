/**
 * The official openai Python SDK against `replio serve`, where it is installed: the interpreter
 * named by REPLIO_TEST_PYTHON, else `python3`, must import `openai` (`pip install openai` in a
 * venv). Without one the test is skipped, and says so; the TypeScript SDK's tests
 * (serve_openai_test.ts) run everywhere.
 */
import assert from "node:assert/strict";
import { refusingPort } from "./support/fault_servers.ts";
import { withDeadline } from "./support/deadline.ts";
import { decode, serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const PYTHON = Deno.env.get("REPLIO_TEST_PYTHON") || "python3";
const CLIENT = new URL("./support/openai_python_client.py", import.meta.url).pathname;

/** Whether `PYTHON` runs and imports the openai package. */
async function hasOpenaiPython(): Promise<boolean> {
  try {
    const probe = await new Deno.Command(PYTHON, {
      args: ["-c", "import openai"],
      stdout: "null",
      stderr: "null",
    }).output();
    return probe.success;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const isAvailable = await hasOpenaiPython();
if (!isAvailable) {
  // deno-lint-ignore no-console
  console.error(
    `serve_openai_python_test: skipped: "${PYTHON}" cannot import openai: ` +
      "set REPLIO_TEST_PYTHON to a Python with the openai package",
  );
}

Deno.test({
  name:
    "the openai Python SDK raises replio's failures as OpenAI's: a streamed failure, 502, 400 for tools and n, 404 for a model",
  ignore: !isAvailable,
  async fn() {
    await using wt = await tempWorktree();
    // Nothing listens there: every turn fails at once (a refused local port is not retried).
    await using served = await serve(wt.path, {
      baseUrl: `http://127.0.0.1:${refusingPort()}/v1`,
    });
    const run = await withDeadline(
      new Deno.Command(PYTHON, {
        args: [CLIENT, `${served.base}/v1`],
        // No proxy settings: the SDK must reach 127.0.0.1 directly.
        clearEnv: true,
        env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
      }).output(),
      "the Python client to finish",
    );
    assert.equal(run.code, 0, decode(run.stderr));
    const got = JSON.parse(decode(run.stdout));
    const failed = {
      type: "server_error",
      code: "turn_failed",
      param: null,
    };
    assert.deepEqual(pick(got.stream.error), { class: "APIError", status: null, ...failed });
    assert.match(got.stream.error.message, /^Cannot answer: the turn failed: /);
    assert.deepEqual(pick(got.plain.error), {
      class: "InternalServerError",
      status: 502,
      ...failed,
    });
    assert.deepEqual(pick(got.tools.error), {
      class: "BadRequestError",
      status: 400,
      type: "invalid_request_error",
      code: "unsupported_parameter",
      param: "tools",
    });
    assert.deepEqual(pick(got.n.error), {
      class: "BadRequestError",
      status: 400,
      type: "invalid_request_error",
      code: "unsupported_value",
      param: "n",
    });
    assert.deepEqual(got.model, { value: "replio/agent/explore" });
    assert.deepEqual(pick(got.unknown_model.error), {
      class: "NotFoundError",
      status: 404,
      type: "invalid_request_error",
      code: "model_not_found",
      param: "model",
    });
  },
});

/** An error's fields but the message, which each assertion checks on its own. */
function pick(error: Record<string, unknown>) {
  const { message: _message, ...rest } = error;
  return rest;
}
