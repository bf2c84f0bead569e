import assert from "node:assert/strict";
import { join } from "node:path";
import { Config, ConfigError } from "../config/mod.ts";
import { startMockModel } from "../../tests/support/mock_model.ts";
import { createProvider } from "./select.ts";

const OLLAMA_PORT = 11434;

function isPortFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return false;
    throw error;
  }
}

Deno.test("createProvider takes the server's first model when none is set", async () => {
  await using mock = startMockModel([], { models: ["first-model", "second-model"] });
  const provider = await createProvider(Config.defaults(), { baseUrl: mock.baseUrl });
  assert.equal(provider.model, "first-model");
});

Deno.test("createProvider adds /v1 to a base URL that has no path", async () => {
  await using mock = startMockModel([]);
  const bare = mock.baseUrl.replace(/\/v1$/, "/");
  const provider = await createProvider(Config.defaults().with({ base_url: bare }));
  assert.equal(provider.model, "mock-model");
  assert.deepEqual(mock.exchanges.map((e) => `${e.method} ${e.path}`), ["GET /v1/models"]);
});

Deno.test("createProvider prefers --model over the config and skips the model list", async () => {
  await using mock = startMockModel([]);
  const config = Config.defaults().with({ base_url: mock.baseUrl, model: "configured" });
  assert.equal((await createProvider(config)).model, "configured");
  assert.equal((await createProvider(config, { model: "flag" })).model, "flag");
  assert.deepEqual(mock.exchanges, []);
});

Deno.test("createProvider asks for a model when the server lists none", async () => {
  await using mock = startMockModel([], { models: [] });
  await assert.rejects(
    createProvider(Config.defaults(), { baseUrl: mock.baseUrl }),
    new ConfigError(
      `No model set and "${mock.baseUrl}/models" lists none: run \`replio config set model ` +
        "NAME` or pass --model",
    ),
  );
});

Deno.test("createProvider points at the server and network when it cannot connect", async () => {
  const gone = startMockModel();
  await gone.close();
  await assert.rejects(
    createProvider(Config.defaults(), { baseUrl: gone.baseUrl }),
    new ConfigError(
      `Cannot list the models at "${gone.baseUrl}": cannot connect: Connection refused ` +
        "(os error 111): check that the server is running, base_url is right and the network is up",
    ),
  );
});

Deno.test("createProvider points at the API key when the model list is refused", async () => {
  await using server = serve(() => new Response("denied", { status: 401 }));
  await assert.rejects(
    createProvider(Config.defaults(), { baseUrl: server.url }),
    new ConfigError(
      `Cannot list the models at "${server.url}": HTTP 401: set OPENAI_API_KEY to a valid API key`,
    ),
  );
});

Deno.test("createProvider says a proxy's HTML page answered, with its title", async () => {
  const page = "<!DOCTYPE html><html><head><title>Sign in - Corp Proxy</title></head></html>";
  await using server = serve(() =>
    new Response(page, { headers: { "content-type": "text/html" } })
  );
  await assert.rejects(
    createProvider(Config.defaults(), { baseUrl: server.url }),
    new ConfigError(
      `Cannot list the models at "${server.url}": HTTP 200 with an HTML page titled ` +
        '"Sign in - Corp Proxy": a proxy or login page answered instead of the model server: ' +
        "check base_url, your proxy settings (HTTPS_PROXY) and that you are logged in to the network",
    ),
  );
});

/** A server on 127.0.0.1 answering every request with `respond`. */
function serve(respond: () => Response) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, respond);
  return {
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("createProvider rejects a base URL that is not http", async () => {
  await assert.rejects(
    createProvider(Config.defaults().with({ base_url: "ftp://example.com" })),
    new ConfigError(
      'Cannot use base_url "ftp://example.com": not http or https: run `replio config set ' +
        "base_url http://HOST:PORT/v1 --global`, pass --base-url, or set OPENAI_BASE_URL",
    ),
  );
});

Deno.test({
  name: "createProvider explains how to configure a server when none is found",
  // No env access and no net access to Ollama's port: nothing to find, and no prompt.
  permissions: { env: false, net: ["127.0.0.1:1"], read: true },
  async fn() {
    await assert.rejects(
      createProvider(Config.defaults()),
      new ConfigError(
        "No model server configured: base_url is empty, replio may not read OPENAI_BASE_URL " +
          "or OPENAI_API_KEY (started without --allow-env=OPENAI_BASE_URL,OPENAI_API_KEY), and " +
          "no Ollama answers on 127.0.0.1:11434: add --allow-env=OPENAI_BASE_URL,OPENAI_API_KEY " +
          "if they are set, or run `replio config set base_url http://HOST:PORT/v1 --global`, or pass " +
          "--base-url",
      ),
    );
  },
});

Deno.test({
  name: "createProvider finds a local Ollama on its default port",
  ignore: !isPortFree(OLLAMA_PORT),
  permissions: { env: false, net: true, read: true },
  async fn() {
    await using ollama = startMockModel([], { port: OLLAMA_PORT, models: ["llama3.2"] });
    const provider = await createProvider(Config.defaults());
    assert.equal(provider.model, "llama3.2");
    assert.equal(ollama.exchanges.length, 2, "one probe, one model list");
  },
});

/** Runs createProvider in a child process with `env` and `flags`; returns its output. */
async function createInChild(env: Record<string, string>, flags: string[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "replio_select_" });
  try {
    const script = join(dir, "pick.ts");
    await Deno.writeTextFile(
      script,
      `import { Config } from ${JSON.stringify(import.meta.resolve("../config/mod.ts"))};
import { createProvider } from ${JSON.stringify(import.meta.resolve("./select.ts"))};
try {
  console.log((await createProvider(Config.defaults())).model);
} catch (error) {
  console.log(String(error));
}
`,
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
        "--allow-read",
        ...flags,
        script,
      ],
      env: { ...env, NO_COLOR: "1" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(output.stdout).trim() ||
      new TextDecoder().decode(output.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("createProvider uses OPENAI_BASE_URL and the key variable when env is allowed", async () => {
  await using mock = startMockModel([], { models: ["env-model"] });
  const env = { OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: "sk-from-env-1234" };
  // Only the mock's port: a real Ollama on this machine must not be found instead.
  const net = `--allow-net=${new URL(mock.baseUrl).host}`;
  assert.equal(
    await createInChild(env, [net, "--allow-env=OPENAI_BASE_URL,OPENAI_API_KEY"]),
    "env-model",
  );
  assert.equal(mock.exchanges[0]?.authorization, "Bearer sk-from-env-1234");
  const refused = await createInChild(env, [net]);
  assert.match(refused, /^ConfigError: No model server configured: /);
  // Set but unreadable is not "unset": the error names the flag that would show them.
  assert.match(refused, /replio may not read OPENAI_BASE_URL or OPENAI_API_KEY/);
  assert.match(refused, /add --allow-env=OPENAI_BASE_URL,OPENAI_API_KEY if they are set/);
  assert.doesNotMatch(refused, /are unset/);
  assert.equal(mock.exchanges.length, 1);
});

Deno.test({
  name: "createProvider says once that it cannot see the key variable (no --allow-env)",
  permissions: { env: false, net: false, read: true },
  async fn() {
    const notices: string[] = [];
    const config = Config.defaults().with({ base_url: "https://llm.example.com/v1", model: "m" });
    await createProvider(config, { notice: (message) => notices.push(message) });
    assert.deepEqual(notices, [
      "replio cannot see OPENAI_API_KEY (started without --allow-env=OPENAI_API_KEY): requests " +
      "to llm.example.com go without an API key; add that flag if it is set",
    ]);
    // A local server needs no key: nothing to say.
    notices.length = 0;
    await createProvider(
      Config.defaults().with({ base_url: "http://127.0.0.1:9/v1", model: "m" }),
      {
        notice: (message) => notices.push(message),
      },
    );
    assert.deepEqual(notices, []);
  },
});
