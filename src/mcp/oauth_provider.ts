/**
 * The SDK's `OAuthClientProvider` over replio's stored logins (oauth_store.ts): OAuth 2.1 with
 * PKCE and dynamic client registration, as the MCP authorization spec has it, with the SDK's
 * `auth()` doing the protocol. Two ways to use it: during `replio mcp login` (a `LoginFlow`: a
 * loopback redirect, and a browser sent to the authorization URL), and for every other command,
 * headless, where it only ever refreshes an expired token: a login it would need is
 * {@link McpLoginRequired}, never a browser opening and never a client registered.
 * @module
 */
import {
  auth,
  type FetchLike,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from "./_sdk_http.ts";
import { readLogin, type StoredLogin, writeLogin } from "./oauth_store.ts";
import { McpLoginRequired } from "./start_error.ts";

/** An access token this close to its expiry is refreshed before use: a request takes a while. */
const EXPIRY_MARGIN_MS = 30_000;

/** What an interactive login supplies: where the code comes back and where the person goes. */
export interface LoginFlow {
  /** The loopback URL the authorization server redirects to with the code. */
  redirectUrl: string;
  /** The `state` sent with the authorization request; the redirect must carry it back. */
  state: string;
  /** Sends the person to the authorization URL (a browser, or the URL printed). */
  openAuthorization(url: URL): void | Promise<void>;
}

/** A login kept in replio's state folder, for one server name and URL. */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #login: StoredLogin;
  readonly #flow: LoginFlow | null;
  #verifier = "";
  /** Tokens saved by this provider: during a login, the only ones it offers. */
  #hasNewTokens = false;
  /** Discovery kept between the 401 and the code exchange, so both use the same servers. */
  #discovery: OAuthDiscoveryState | undefined;

  private constructor(login: StoredLogin, flow: LoginFlow | null) {
    this.#login = login;
    this.#flow = flow;
  }

  /** The provider for `server` at `url`, with what is stored; `flow` only for a login. */
  static async load(
    server: string,
    url: string,
    flow: LoginFlow | null = null,
  ): Promise<StoredOAuthProvider> {
    const stored = await readLogin(server, url);
    return new StoredOAuthProvider(stored ?? { server, url }, flow);
  }

  /** Whether a login is stored (tokens, with or without a refresh token). */
  get hasTokens(): boolean {
    return this.#login.tokens !== undefined;
  }

  /**
   * The redirect URL: the login's loopback listener, or (headless) the one registered before.
   * Never empty: the SDK takes an empty one for a client-credentials client.
   */
  get redirectUrl(): string {
    const registered = this.#login.client?.redirect_uris;
    return this.#flow?.redirectUrl ??
      (Array.isArray(registered) && typeof registered[0] === "string"
        ? registered[0]
        : "http://127.0.0.1/callback");
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "replio",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      // A public client: PKCE protects the code, and there is no secret a CLI could keep.
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return this.#flow?.state ?? crypto.randomUUID();
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const client = this.#login.client as OAuthClientInformationMixed | undefined;
    if (this.#flow) {
      // A registration for another redirect (an earlier login's port) would be refused at the
      // authorization endpoint: register again.
      const uris = (client as { redirect_uris?: unknown } | undefined)?.redirect_uris;
      return Array.isArray(uris) && uris.includes(this.#flow.redirectUrl) ? client : undefined;
    }
    // Headless: registering a client is part of logging in, which only `replio mcp login` does.
    if (!client) throw new McpLoginRequired(this.#login.server, "it needs a login");
    return client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    this.#login.client = { ...client };
    await writeLogin(this.#login);
  }

  tokens(): OAuthTokens | undefined {
    // A login starts afresh: an account switch must not be answered with the old tokens.
    if (this.#flow && !this.#hasNewTokens) return undefined;
    return this.#login.tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#login.tokens = { ...tokens };
    this.#hasNewTokens = true;
    if (tokens.expires_in === undefined) delete this.#login.expiresAt;
    else this.#login.expiresAt = Date.now() + tokens.expires_in * 1000;
    await writeLogin(this.#login);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.#flow) {
      throw new McpLoginRequired(
        this.#login.server,
        this.hasTokens ? "its login has expired and could not be renewed" : "it needs a login",
      );
    }
    await this.#flow.openAuthorization(url);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  /** Forgets what the server said is no longer valid, so the next attempt starts afresh. */
  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier") this.#verifier = "";
    if (scope === "all" || scope === "discovery") this.#discovery = undefined;
    if (scope === "all" || scope === "client") delete this.#login.client;
    if (scope === "all" || scope === "tokens") {
      delete this.#login.tokens;
      delete this.#login.expiresAt;
    }
    if (scope !== "verifier" && scope !== "discovery") await writeLogin(this.#login);
  }

  /**
   * Renews the access token before it is used when it has expired (or nearly has): with the
   * refresh token through `auth()`, or {@link McpLoginRequired} when there is none or the
   * authorization server refuses it. A token without a known lifetime is used until refused.
   */
  async refreshIfExpired(serverUrl: URL, fetchFn: FetchLike): Promise<void> {
    const expiresAt = this.#login.expiresAt;
    if (!this.hasTokens || expiresAt === undefined || expiresAt - EXPIRY_MARGIN_MS > Date.now()) {
      return;
    }
    if (this.#login.tokens?.refresh_token === undefined) {
      throw new McpLoginRequired(this.#login.server, "its login has expired");
    }
    // Without a code, auth() refreshes; a refused refresh ends in redirectToAuthorization,
    // which throws McpLoginRequired here.
    await auth(this, { serverUrl, fetchFn });
  }
}
