/**
 * `replio mcp login`'s flow, as the MCP authorization spec has it for a native client: connect
 * without a token, follow the server's 401 to its authorization server (discovery, dynamic
 * client registration, PKCE), send the person to the authorization URL, take the code on a
 * loopback redirect (127.0.0.1, a port of its own), exchange it for tokens, which are stored
 * (oauth_store.ts), then connect again with them to prove they work.
 * @module
 */
import { Client } from "./_sdk.ts";
import { auth, UnauthorizedError } from "./_sdk_http.ts";
import { fetchWithHeaders, HttpServerTransport } from "./http_transport.ts";
import { StoredOAuthProvider } from "./oauth_provider.ts";
import { readLogin } from "./oauth_store.ts";

/** What a login needs: the server, and a way to send the person to a URL. */
export interface McpLoginOptions {
  /** The name in `mcp_servers`. */
  server: string;
  url: string;
  /** The entry's `headers`, sent to the server's origin as on every connection. */
  headers: Readonly<Record<string, string>>;
  /** replio's version, sent as the client version. */
  version: string;
  /** Sends the person to the authorization URL; `callback` is where the browser comes back. */
  openAuthorization(url: URL, callback: string): void | Promise<void>;
  /** Cancels the wait for the browser (Ctrl-C). */
  signal: AbortSignal;
}

/** How a login ended: logged in with the server's tool count, or the server wants no login. */
export type McpLoginResult = { status: "logged_in"; tools: number } | { status: "not_needed" };

/** Logs in to one remote server and stores its tokens; throws with what went wrong. */
export async function loginToMcpServer(options: McpLoginOptions): Promise<McpLoginResult> {
  const state = crypto.randomUUID();
  const callback = listenForCode(await previousPort(options), state, options.signal);
  try {
    const provider = await StoredOAuthProvider.load(options.server, options.url, {
      redirectUrl: callback.url,
      state,
      openAuthorization: (url) => options.openAuthorization(url, callback.url),
    });
    const url = new URL(options.url);
    const first = await connect(url, provider, options);
    if (first !== "unauthorized") {
      await first.close();
      return { status: "not_needed" };
    }
    const code = await callback.code();
    const fetchFn = fetchWithHeaders(url.origin, options.headers);
    const result = await auth(provider, { serverUrl: url, authorizationCode: code, fetchFn });
    if (result !== "AUTHORIZED") {
      throw new Error("the authorization server did not issue tokens for the code: try again");
    }
    // Proof that the tokens open the server, and the count the person sees.
    const client = await connect(url, provider, options);
    if (client === "unauthorized") {
      throw new Error("the server refused the new tokens: try again, or check its configuration");
    }
    try {
      const { tools } = await client.listTools();
      return { status: "logged_in", tools: tools.length };
    } finally {
      await client.close();
    }
  } finally {
    await callback.close();
  }
}

/** A connected client, or `unauthorized` once the provider has sent the person to log in. */
async function connect(
  url: URL,
  provider: StoredOAuthProvider,
  options: McpLoginOptions,
): Promise<Client | "unauthorized"> {
  const client = new Client({ name: "replio", version: options.version });
  const transport = new HttpServerTransport({ url, headers: options.headers, auth: provider });
  try {
    await client.connect(transport);
    return client;
  } catch (error) {
    await transport.close();
    if (error instanceof UnauthorizedError) return "unauthorized";
    throw error;
  }
}

/**
 * The loopback port an earlier login registered, so its client registration is reused; any
 * port (0) when there was none.
 */
async function previousPort(options: McpLoginOptions): Promise<number> {
  const uris = (await readLogin(options.server, options.url))?.client?.redirect_uris;
  const first = Array.isArray(uris) ? uris[0] : undefined;
  if (typeof first !== "string" || !URL.canParse(first)) return 0;
  const { hostname, port } = new URL(first);
  return hostname === "127.0.0.1" && port ? Number(port) : 0;
}

/** The loopback listener the authorization server sends the browser back to. */
interface CodeListener {
  /** `http://127.0.0.1:<port>/callback`. */
  url: string;
  /** The code of the first redirect carrying the state; rejects on an error or cancellation. */
  code(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at `port` (any free one when it is taken, or 0) for the redirect that
 * carries `state`.
 */
function listenForCode(port: number, state: string, signal: AbortSignal): CodeListener {
  const arrived = Promise.withResolvers<URLSearchParams>();
  // Rejected only when awaited: a login that fails before the browser step leaves it unread.
  arrived.promise.catch(() => {});
  const onAbort = () => arrived.reject(new DOMException("cancelled", "AbortError"));
  signal.addEventListener("abort", onAbort, { once: true });
  const handler = (request: Request): Response => {
    const { pathname, searchParams } = new URL(request.url);
    if (pathname !== "/callback") return page(404, "Not found", "This is replio's login page.");
    // Another tab, or a page trying its luck: only the redirect of this login counts.
    if (searchParams.get("state") !== state) {
      return page(400, "Not this login", "This link is not for the login replio is waiting for.");
    }
    arrived.resolve(searchParams);
    return searchParams.has("code")
      ? page(200, "Logged in", "replio is logged in. You can close this tab.")
      : page(400, "Login failed", "The server refused the login: see the terminal.");
  };
  const serve = (at: number) =>
    Deno.serve({ hostname: "127.0.0.1", port: at, onListen: () => {} }, handler);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = serve(port);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse) || port === 0) throw error;
    server = serve(0);
  }
  return {
    url: `http://127.0.0.1:${server.addr.port}/callback`,
    async code() {
      const params = await arrived.promise;
      const code = params.get("code");
      if (code) return code;
      const reason = params.get("error_description") ?? params.get("error") ?? "no code came back";
      throw new Error(`the authorization server refused the login: ${reason}: try again`);
    },
    async close() {
      signal.removeEventListener("abort", onAbort);
      await server.shutdown();
    },
  };
}

/** A small HTML page for the browser tab. */
function page(status: number, title: string, text: string): Response {
  return new Response(
    `<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>\n`,
    { status, headers: { "content-type": "text/html; charset=utf-8" } },
  );
}
