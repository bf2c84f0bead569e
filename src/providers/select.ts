/**
 * Chooses the model endpoint, key and model from flags, the config, the environment, or a
 * local Ollama, and builds the provider.
 * @module
 */
import { type Config, ConfigError } from "../config/mod.ts";
import { listModels, ModelListError } from "./list_models.ts";
import { createOpenAIProvider } from "./openai.ts";
import type { Provider } from "./types.ts";

/** Ollama's OpenAI-compatible endpoint on its default port. */
export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";
const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** A local server answers in milliseconds; waiting longer only delays the error. */
const OLLAMA_PROBE_TIMEOUT_MS = 300;
const HOW_TO_CONFIGURE = "run `replio config set base_url http://HOST:PORT/v1 --global`, " +
  "pass --base-url, or set OPENAI_BASE_URL";

/** Command-line choices that beat the config. */
export interface ProviderOverrides {
  model?: string;
  baseUrl?: string;
  /**
   * Told when a setting the user may have made cannot be seen: the endpoint was chosen without
   * reading `OPENAI_BASE_URL` or the key variable because env access was not granted.
   */
  notice?: (message: string) => void;
}

/**
 * Builds the provider. The endpoint is the first of: `baseUrl`, `base_url`, Ollama when
 * `provider` is `ollama`, `OPENAI_BASE_URL`, api.openai.com when the `api_key_env` variable is
 * set, a local Ollama that answers; else a ConfigError. An empty model means the server's first
 * listed model. Environment variables are read only when already permitted (no prompt).
 *
 * @example
 * ```ts ignore
 * const provider = await createProvider(config, { baseUrl: "http://127.0.0.1:8080/v1" });
 * ```
 */
export async function createProvider(
  config: Config,
  overrides: ProviderOverrides = {},
): Promise<Provider> {
  const keyEnv = config.get("api_key_env");
  const apiKey = readEnv(keyEnv) ?? "";
  const configured = overrides.baseUrl || config.get("base_url");
  const baseUrl = configured
    ? normalizeBaseUrl(configured)
    : await findEndpoint(config, apiKey, overrides.notice);
  if (configured && !apiKey && keyEnv && !canReadEnv(keyEnv) && !isLocalUrl(baseUrl)) {
    overrides.notice?.(
      `replio cannot see ${keyEnv} (started without --allow-env=${keyEnv}): ` +
        `requests to ${new URL(baseUrl).host} go without an API key; add that flag if it is set`,
    );
  }
  const model = overrides.model || config.get("model") || await firstModel(config, baseUrl, apiKey);
  return createOpenAIProvider({ config, baseUrl, model, apiKey });
}

async function findEndpoint(
  config: Config,
  apiKey: string,
  notice: ((message: string) => void) | undefined,
): Promise<string> {
  if (config.get("provider") === "ollama") return OLLAMA_BASE_URL;
  const fromEnv = readEnv("OPENAI_BASE_URL");
  if (fromEnv) return normalizeBaseUrl(fromEnv);
  if (apiKey) return OPENAI_BASE_URL;
  // Unread is not unset: without the grant replio cannot tell, so it says which flag would.
  const keyEnv = config.get("api_key_env");
  const unseen = ["OPENAI_BASE_URL", keyEnv].filter((name) => name && !canReadEnv(name));
  const envFlag = `--allow-env=${unseen.join(",")}`;
  if (
    await listModels(OLLAMA_BASE_URL, "", { timeoutMs: OLLAMA_PROBE_TIMEOUT_MS }).catch(() => null)
  ) {
    if (unseen.length) {
      notice?.(
        `using Ollama on 127.0.0.1:11434: replio cannot see ${unseen.join(" or ")} ` +
          `(started without ${envFlag}); add that flag to use them`,
      );
    }
    return OLLAMA_BASE_URL;
  }
  const envPart = unseen.length === 0
    ? `OPENAI_BASE_URL and ${keyEnv || "the API key variable"} are unset`
    : `replio may not read ${unseen.join(" or ")} (started without ${envFlag})`;
  const fix = unseen.length === 0 ? HOW_TO_CONFIGURE : `add ${envFlag} if they are set, or ` +
    "run `replio config set base_url http://HOST:PORT/v1 --global`, or pass --base-url";
  throw new ConfigError(
    `No model server configured: base_url is empty, ${envPart}, and no Ollama answers ` +
      `on 127.0.0.1:11434: ${fix}`,
  );
}

/** Loopback servers (Ollama, vLLM, a mock) need no key. */
function isLocalUrl(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/**
 * Trims trailing slashes and adds `/v1` to a bare host, the path every OpenAI-compatible
 * server (Ollama, vLLM, llama.cpp, LM Studio) serves.
 */
function normalizeBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new ConfigError(`Cannot use base_url "${text}": not a URL: ${HOW_TO_CONFIGURE}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`Cannot use base_url "${text}": not http or https: ${HOW_TO_CONFIGURE}`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path || "/v1"}${url.search}`;
}

async function firstModel(config: Config, baseUrl: string, apiKey: string): Promise<string> {
  let models: string[];
  try {
    models = await listModels(baseUrl, apiKey);
  } catch (error) {
    if (!(error instanceof ModelListError)) throw error;
    // The fix depends on what failed: a model name cannot cure an unreachable server.
    const fix = error.fix ??
      (error.status === 401 || error.status === 403
        ? `set ${config.get("api_key_env") || "the API key variable"} to a valid API key`
        : error.status === 404
        ? `check base_url: "${baseUrl}/models" does not exist (OpenAI-compatible servers serve /v1)`
        : `check the server at "${baseUrl}", or ${SET_MODEL}`);
    throw new ConfigError(`Cannot list the models at "${baseUrl}": ${error.message}: ${fix}`);
  }
  const model = models[0];
  if (model === undefined) {
    throw new ConfigError(`No model set and "${baseUrl}/models" lists none: ${SET_MODEL}`);
  }
  return model;
}

const SET_MODEL = "run `replio config set model NAME` or pass --model";

/** An environment variable, only if reading it is already permitted (never prompts). */
function readEnv(name: string): string | undefined {
  return canReadEnv(name) ? Deno.env.get(name)?.trim() || undefined : undefined;
}

function canReadEnv(name: string): boolean {
  return name !== "" &&
    Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
}
