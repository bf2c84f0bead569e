/**
 * A remote MCP server for tests, built from the SDK's own parts on 127.0.0.1: `McpServer` with a
 * `whoami` tool, served over Streamable HTTP (`StreamableHTTPServerTransport`, the default) or
 * only over the older HTTP+SSE transport (`--sse`: `SSEServerTransport`, GET /mcp and POST
 * /messages). It can demand a header (`--header NAME=VALUE`), a bearer token (`--bearer-env VAR`:
 * the token is the variable's value), or OAuth (`--oauth`): the SDK's `mcpAuthRouter` (metadata,
 * dynamic client registration, authorization with PKCE, tokens) over the SDK's demo in-memory
 * provider, extended with refresh tokens, and `requireBearerAuth` in front of /mcp. Its
 * authorization endpoint approves at once, as the demo does: the test is the browser.
 *
 * It prints `{"url": …}` on stdout once it listens. Test-only routes, not logged:
 * `GET /test/log` returns every request it received (method, path, Authorization, the demanded
 * header, the grant type of token requests); `POST /test/expire` makes every access token it
 * issued invalid, as if expired; `POST /test/lifetime?seconds=N` makes later tokens report a
 * lifetime of N seconds (they stay valid for an hour); `POST /test/forget` forgets every
 * Streamable HTTP session, as a restarted server has (a request naming one is then a 404).
 *
 * `deno run -A tests/support/mcp_http_server.ts [--sse] [--oauth] [--bearer-env VAR]
 * [--header NAME=VALUE] [--name NAME]`
 * @module
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/sse"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
// @ts-types="@modelcontextprotocol/sdk/server/express"
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
// @ts-types="@modelcontextprotocol/sdk/server/auth/router"
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
// @ts-types="@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth"
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
// @ts-types="@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider"
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
// @ts-types="@modelcontextprotocol/sdk/server/auth/errors"
import {
  InvalidGrantError,
  InvalidTokenError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
import type {
  OAuthClientInformationFull,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";

/** One request as the test reads it back from `GET /test/log`. */
export interface LoggedRequest {
  method: string;
  path: string;
  authorization: string | null;
  /** The value of the header `--header` demands, when one is demanded. */
  header: string | null;
  /** `grant_type` of a POST /token. */
  grant: string | null;
}

const args = Deno.args;
const option = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const isSse = args.includes("--sse");
const isOauth = args.includes("--oauth");
const bearerEnv = option("--bearer-env");
const expectedBearer = bearerEnv === undefined ? undefined : Deno.env.get(bearerEnv);
const [headerName, headerValue] = option("--header")?.split("=") ?? [];
const name = option("--name") ?? "remote";

/** What the demo provider keeps of an access token (a TypeScript-private field of it). */
interface TokenData {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: URL;
}

/** The demo provider with what it leaves out: refresh tokens, and expiry on demand. */
class RefreshingProvider extends DemoInMemoryAuthProvider {
  readonly #refresh = new Map<string, { clientId: string; scopes: string[]; resource?: URL }>();
  /** The `expires_in` later tokens report. */
  lifetimeSeconds = 3600;

  /** The demo's token table, private to it in TypeScript only. */
  get #tokens(): Map<string, TokenData & { token: string }> {
    return (this as unknown as { tokens: Map<string, TokenData & { token: string }> }).tokens;
  }

  override async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    code: string,
    verifier?: string,
  ): Promise<OAuthTokens> {
    const tokens = await super.exchangeAuthorizationCode(client, code, verifier);
    return this.#withRefresh(client, tokens, this.#tokens.get(tokens.access_token)?.resource);
  }

  override exchangeRefreshToken(
    client: OAuthClientInformationFull,
    refreshToken: string,
  ): Promise<OAuthTokens> {
    const grant = this.#refresh.get(refreshToken);
    if (!grant || grant.clientId !== client.client_id) {
      return Promise.reject(new InvalidGrantError("Unknown refresh token"));
    }
    // Rotated, as OAuth 2.1 wants for public clients: the old one is spent.
    this.#refresh.delete(refreshToken);
    const token = randomUUID();
    this.#tokens.set(token, {
      token,
      clientId: client.client_id,
      scopes: grant.scopes,
      expiresAt: Date.now() + 3_600_000,
      ...(grant.resource ? { resource: grant.resource } : {}),
    });
    return Promise.resolve(this.#withRefresh(client, {
      access_token: token,
      token_type: "bearer",
      scope: grant.scopes.join(" "),
    }, grant.resource));
  }

  /** A token it does not know (or that expired) is a 401, not the demo's plain error (a 500). */
  override async verifyAccessToken(token: string) {
    try {
      return await super.verifyAccessToken(token);
    } catch (error) {
      throw new InvalidTokenError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Every access token issued so far stops working, as an expired one does. */
  expireAll(): void {
    for (const data of this.#tokens.values()) data.expiresAt = Date.now() - 1;
  }

  #withRefresh(client: OAuthClientInformationFull, tokens: OAuthTokens, resource?: URL) {
    const refresh = randomUUID();
    this.#refresh.set(refresh, {
      clientId: client.client_id,
      scopes: tokens.scope ? tokens.scope.split(" ") : [],
      ...(resource ? { resource } : {}),
    });
    return { ...tokens, expires_in: this.lifetimeSeconds, refresh_token: refresh };
  }
}

function mcpServer(transport: string): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  server.registerTool("whoami", {
    description: "Say which server answers and over which transport",
    annotations: { readOnlyHint: true },
  }, () => ({ content: [{ type: "text", text: `${name} over ${transport}` }] }));
  return server;
}

/** The parts of express's request and response these routes use (its types are not loaded). */
type Req = IncomingMessage & { body?: Record<string, unknown>; url: string };
type Res = ServerResponse & { json(body: unknown): void; status(code: number): Res };
type Next = () => void;

const log: LoggedRequest[] = [];
const app = createMcpExpressApp();
app.use(urlencoded);
const http = createServer(app);
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
const mcpUrl = new URL("/mcp", origin);

app.use((req: Req, _res: Res, next: Next) => {
  if (!req.url?.startsWith("/test/")) {
    log.push({
      method: req.method ?? "",
      path: req.url ?? "",
      authorization: req.headers.authorization ?? null,
      header: headerName ? String(req.headers[headerName.toLowerCase()] ?? "") || null : null,
      grant: typeof req.body?.grant_type === "string" ? req.body.grant_type : null,
    });
  }
  next();
});

const provider = new RefreshingProvider();
app.get("/test/log", (_req: Req, res: Res) => res.json(log));
app.post("/test/expire", (_req: Req, res: Res) => {
  provider.expireAll();
  res.json({ ok: true });
});
app.post("/test/lifetime", (req: Req, res: Res) => {
  provider.lifetimeSeconds = Number(new URL(req.url, origin).searchParams.get("seconds"));
  res.json({ ok: true });
});

/** Refuses requests without the demanded header or bearer token, as a gateway would. */
const checks = [
  (req: Req, res: Res, next: Next) => {
    if (headerName && req.headers[headerName.toLowerCase()] !== headerValue) {
      res.writeHead(400, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: `missing or wrong ${headerName}` }));
    }
    if (expectedBearer !== undefined && req.headers.authorization !== `Bearer ${expectedBearer}`) {
      res.writeHead(401, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: "invalid bearer token" }));
    }
    next();
  },
];
if (isOauth) {
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl }));
  checks.push(
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    }) as typeof checks[number],
  );
}

if (isSse) {
  const sessions = new Map<string, SSEServerTransport>();
  app.get("/mcp", ...checks, async (_req: Req, res: Res) => {
    const transport = new SSEServerTransport("/messages", res);
    sessions.set(transport.sessionId, transport);
    res.on("close", () => sessions.delete(transport.sessionId));
    await mcpServer("sse").connect(transport);
  });
  app.post("/messages", ...checks, async (req: Req, res: Res) => {
    const id = new URL(req.url, origin).searchParams.get("sessionId") ?? "";
    const transport = sessions.get(id);
    if (!transport) return void res.status(404).json({ error: "no such session" });
    await transport.handlePostMessage(req, res, req.body);
  });
} else {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.post("/test/forget", async (_req: Req, res: Res) => {
    const forgotten = [...sessions.values()];
    sessions.clear();
    await Promise.all(forgotten.map((transport) => transport.close()));
    res.json({ ok: true });
  });
  app.all("/mcp", ...checks, async (req: Req, res: Res) => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) return void res.status(404).json({ error: "no such session" });
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
      });
      await mcpServer("streamable-http").connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res, req.body);
  });
}

/** Form bodies (POST /token, as OAuth sends them), parsed as express.urlencoded() would. */
async function urlencoded(req: Req, _res: Res, next: Next) {
  if (req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded")) {
    let text = "";
    for await (const chunk of req) text += chunk;
    req.body = Object.fromEntries(new URLSearchParams(text));
    // body-parser's own urlencoded() in the SDK's token route skips a body already read.
    (req as { _body?: boolean })._body = true;
  }
  next();
}

Deno.stdout.writeSync(new TextEncoder().encode(JSON.stringify({ url: mcpUrl.href }) + "\n"));
