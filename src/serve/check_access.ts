/**
 * Who may call `replio serve`: with a token, whoever sends it; without one, local programs only.
 * Browsers are not supported either way (docs/serve.md, "No web pages").
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { HttpError } from "./http_error.ts";
import { isLoopbackHost } from "./is_loopback_host.ts";

/** What {@link checkAccess} checks against. */
export interface AccessRules {
  /** The bearer token every request must carry; none means loopback programs only. */
  token: string | undefined;
  /** `http://HOST:PORT` as bound, named in the refusal of a foreign `Host`. */
  serverUrl: string;
}

const TOKEN_HINT = `send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`;
const CHALLENGE = { "www-authenticate": 'Bearer realm="replio"' };

/**
 * Throws HttpError 401 or 403 unless the request may be answered. A browser's CORS preflight
 * (`OPTIONS`) is refused first, token or not: the API sends no CORS headers, so no page could use
 * the answer, and a 401 would only hide why.
 */
export function checkAccess(request: Request, url: URL, rules: AccessRules): void {
  if (request.method === "OPTIONS") {
    throw new HttpError(
      403,
      "cors_unsupported",
      `Cannot answer a browser's preflight for "${url.pathname}": replio serve sends no CORS ` +
        `headers, so web pages cannot call it: call it from a program, or from a local proxy ` +
        `that adds the headers your page needs`,
    );
  }
  const { token } = rules;
  // Without a token, a web page would send `Origin` (cross-site posts) or a foreign `Host`
  // (DNS rebinding); with one, the token is the whole check.
  if (token === undefined) {
    const origin = request.headers.get("origin");
    // A page of this very address is no other site (replio serves none); MCP asks a local server
    // to accept its own origin and refuse all others.
    if (origin !== null && origin !== url.origin) {
      throw new HttpError(
        403,
        "forbidden",
        `Cannot answer a request from the web page "${origin}": without a token the API ` +
          `answers local programs only: call it without an Origin header, or set REPLIO_SERVE_TOKEN`,
      );
    }
    if (!isLoopbackHost(url.hostname)) {
      throw new HttpError(
        403,
        "forbidden",
        `Cannot answer a request for host "${url.host}": without a token the API answers ` +
          `loopback names only: call ${rules.serverUrl}, or set REPLIO_SERVE_TOKEN`,
      );
    }
    return;
  }
  const header = request.headers.get("authorization") ?? "";
  const scheme = /^(\S+)\s/.exec(header)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== "bearer") {
    throw new HttpError(
      401,
      "unauthorized",
      `Cannot answer: the Authorization header uses the "${scheme}" scheme, and this API ` +
        `takes only a bearer token: ${TOKEN_HINT}`,
      { headers: CHALLENGE },
    );
  }
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (given === undefined || !isSameSecret(given, token)) {
    throw new HttpError(
      401,
      "unauthorized",
      `Cannot answer: ${given === undefined ? "no" : "a wrong"} bearer token: ${TOKEN_HINT}`,
      { headers: CHALLENGE },
    );
  }
}

/** Compares digests so the time taken says nothing about how much of the token matched. */
function isSameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
