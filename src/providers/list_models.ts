/**
 * `GET {baseUrl}/models`: the model ids an OpenAI-compatible server offers, with failures that
 * say what went wrong (unreachable, refused key, a proxy's HTML page) and how to fix it.
 * @module
 */
import { describeHtml, HTML_FIX } from "./describe_html.ts";

/** The fix when a model server cannot be reached: the server, the URL, or the network. */
export const CONNECTION_FIX =
  "check that the server is running, base_url is right and the network is up";

/** A server that has not listed its models by then is not going to. */
const LIST_MODELS_TIMEOUT_MS = 10_000;

/** Why `GET /models` failed: the HTTP status when there was one, the fix when it is known. */
export class ModelListError extends Error {
  override name = "ModelListError";
  constructor(message: string, readonly status: number | null, readonly fix: string | null) {
    super(message);
  }
}

/** Options of {@link listModels}. */
export interface ListModelsOptions {
  /** Give up after this long; default 10 s. */
  timeoutMs?: number;
  /** Stops waiting at once (Ctrl-C); the rejection is then the signal's reason. */
  signal?: AbortSignal;
}

/**
 * The model ids `GET {baseUrl}/models` lists.
 * @throws {ModelListError} when the server cannot be reached or does not answer with a list
 */
export async function listModels(
  baseUrl: string,
  apiKey: string,
  options: ListModelsOptions = {},
): Promise<string[]> {
  const timeoutMs = options.timeoutMs ?? LIST_MODELS_TIMEOUT_MS;
  const host = new URL(baseUrl).host;
  if (Deno.permissions.querySync({ name: "net", host }).state !== "granted") {
    throw new ModelListError(
      `replio was started without network access to "${host}"`,
      null,
      `restart it with --allow-net=${host}`,
    );
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const signal = options.signal
    ? AbortSignal.any([controller.signal, options.signal])
    : controller.signal;
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${baseUrl}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (controller.signal.aborted) {
      throw new ModelListError(`no answer within ${timeoutMs} ms`, null, CONNECTION_FIX);
    }
    // fetch reports refused connections, DNS failures and resets as TypeError.
    if (!(error instanceof TypeError)) throw error;
    // Deno nests the reason ("… tcp connect error: Connection refused (os error 111)"): the
    // last part says it.
    const reason = (error.cause instanceof Error ? error.cause.message : error.message)
      .split(": ").at(-1);
    throw new ModelListError(`cannot connect: ${reason}`, null, CONNECTION_FIX);
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

/** Listed models a 404 message names at most. */
const MAX_NAMED_MODELS = 5;

/**
 * The fix for a 404 from chat completions, found by asking the server which models it lists:
 * the model is not among them (they are named), or the server has no OpenAI-compatible API at
 * `baseUrl` at all. Rejects with the signal's reason when `signal` aborts.
 */
export async function modelNotFoundFix(
  endpoint: { baseUrl: string; apiKey: string; model: string },
  signal: AbortSignal,
): Promise<string> {
  const { baseUrl, model } = endpoint;
  const setModel = "pass --model NAME or run `replio config set model NAME`";
  let models: string[];
  try {
    models = await listModels(baseUrl, endpoint.apiKey, { signal });
  } catch (error) {
    if (!(error instanceof ModelListError)) throw error;
    if (error.status === 404) {
      return `check base_url: "${baseUrl}" serves neither /chat/completions nor /models ` +
        "(OpenAI-compatible servers serve them under /v1)";
    }
    return `check that model "${model}" exists: list the models with ` +
      `\`curl ${baseUrl}/models\`, then ${setModel}`;
  }
  if (models.includes(model)) {
    return `"${baseUrl}/models" lists "${model}", so the chat path is wrong: check base_url`;
  }
  if (models.length === 0) {
    return `"${baseUrl}/models" lists no models: load one on the server, then ${setModel}`;
  }
  const named = models.slice(0, MAX_NAMED_MODELS).map((id) => `"${id}"`).join(", ");
  const more = models.length > MAX_NAMED_MODELS
    ? ` and ${models.length - MAX_NAMED_MODELS} more`
    : "";
  return `the server has no model "${model}"; it lists ${named}${more}: ${setModel}`;
}
