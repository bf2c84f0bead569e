/**
 * Chooses the model endpoint, key and model from flags, the config, the environment, or a
 * local Ollama, and builds the provider.
 * @module
 */
import { type Config, ConfigError } from "../config/mod.ts";
import { describeHtml, HTML_FIX } from "./describe_html.ts";
import { createOpenAIProvider } from "./openai.ts";
import type { Provider } from "./types.ts";

/** Ollama's OpenAI-compatible endpoint on its default port. */
export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";
const OPENAI_BASE_URL = "https://api.openai.com/v1";
/** A local server answers in milliseconds; waiting longer only delays the error. */
const OLLAMA_PROBE_TIMEOUT_MS = 300;
const LIST_MODELS_TIMEOUT_MS = 10_000;
const HOW_TO_CONFIGURE = "run `replio config set base_url http://HOST:PORT/v1`, " +
  "pass --base-url, or set OPENAI_BASE_URL";

/** Command-line choices that beat the config. */
export interface ProviderOverrides {
  model?: string;
  baseUrl?: string;
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
  const apiKey = readEnv(config.get("api_key_env")) ?? "";
  const configured = overrides.baseUrl || config.get("base_url");
  const baseUrl = configured ? normalizeBaseUrl(configured) : await findEndpoint(config, apiKey);
  const model = overrides.model || config.get("model") || await firstModel(config, baseUrl, apiKey);
  return createOpenAIProvider({ config, baseUrl, model, apiKey });
}

async function findEndpoint(config: Config, apiKey: string): Promise<string> {
  if (config.get("provider") === "ollama") return OLLAMA_BASE_URL;
  const fromEnv = readEnv("OPENAI_BASE_URL");
  if (fromEnv) return normalizeBaseUrl(fromEnv);
  if (apiKey) return OPENAI_BASE_URL;
  if (await listModels(OLLAMA_BASE_URL, "", OLLAMA_PROBE_TIMEOUT_MS).catch(() => null)) {
    return OLLAMA_BASE_URL;
  }
  throw new ConfigError(
    `No model server configured: base_url is empty, OPENAI_BASE_URL and ` +
      `${config.get("api_key_env") || "the API key variable"} are unset, and no Ollama answers ` +
      `on 127.0.0.1:11434: ${HOW_TO_CONFIGURE}`,
  );
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
    models = await listModels(baseUrl, apiKey, LIST_MODELS_TIMEOUT_MS);
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

/** Why `GET /models` failed: the HTTP status when there was one, the fix when it is known. */
class ModelListError extends Error {
  override name = "ModelListError";
  constructor(message: string, readonly status: number | null, readonly fix: string | null) {
    super(message);
  }
}

/**
 * The model ids `GET {baseUrl}/models` lists.
 * @throws {ModelListError} when the server cannot be reached or does not answer with a list
 */
export async function listModels(
  baseUrl: string,
  apiKey: string,
  timeoutMs: number,
): Promise<string[]> {
  const host = new URL(baseUrl).host;
  if (Deno.permissions.querySync({ name: "net", host }).state !== "granted") {
    throw new ModelListError(
      `no network permission for "${host}"`,
      null,
      "run replio with --allow-net",
    );
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${baseUrl}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: controller.signal,
    });
    text = await response.text();
  } catch (error) {
    const network = "check that the server is running, base_url is right and the network is up";
    if (controller.signal.aborted) {
      throw new ModelListError(`no answer within ${timeoutMs} ms`, null, network);
    }
    // fetch reports refused connections, DNS failures and resets as TypeError.
    if (!(error instanceof TypeError)) throw error;
    // Deno nests the reason ("… tcp connect error: Connection refused (os error 111)"): the
    // last part says it.
    const reason = (error.cause instanceof Error ? error.cause.message : error.message)
      .split(": ").at(-1);
    throw new ModelListError(`cannot connect: ${reason}`, null, network);
  } finally {
    clearTimeout(timer);
  }
  const html = describeHtml(text, response.headers.get("content-type"));
  if (html) throw new ModelListError(`HTTP ${response.status} with ${html}`, null, HTML_FIX);
  if (!response.ok) throw new ModelListError(`HTTP ${response.status}`, response.status, null);
  let body: { data?: { id?: unknown }[] };
  try {
    body = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new ModelListError(
      `the answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`,
      null,
      "check that base_url points at an OpenAI-compatible /v1 endpoint",
    );
  }
  return (body.data ?? []).map((entry) => entry.id).filter((id) => typeof id === "string");
}

/** An environment variable, only if reading it is already permitted (never prompts). */
function readEnv(name: string): string | undefined {
  if (!name || Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name)?.trim() || undefined;
}
