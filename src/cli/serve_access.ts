/**
 * Who may reach replio's HTTP servers (`replio serve`, `replio mcp --http`), as flags and
 * environment say: the port, the bearer token, and the refusal to open a non-loopback address
 * without one (docs/serve.md, "Security").
 * @module
 */
import { isLoopbackHost } from "../serve/mod.ts";
import { UsageError } from "./errors.ts";

/** The variable holding the bearer token; required to bind anything but loopback. */
export const TOKEN_ENV = "REPLIO_SERVE_TOKEN";

/** The port of `--port`; throws a UsageError for anything but 0 to 65535. */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new UsageError(
      `Cannot use --port "${text}": expected a port from 0 to 65535: pass 8787, or 0 for any free port`,
    );
  }
  return port;
}

/**
 * The token for a server on `host`, when set and readable; an empty value counts as unset. A
 * token with whitespace is refused: a blank one would guard nothing, and no `Authorization:
 * Bearer` header can carry a space, so no client could ever send it. A host other than loopback
 * without a token is refused: anyone who reaches it could run tools here.
 */
export function readServeToken(host: string): string | undefined {
  const token = readToken();
  if (token === undefined && !isLoopbackHost(host)) {
    throw new UsageError(
      `Cannot serve on "${host}": it is reachable from other machines and ` +
        `${TOKEN_ENV} is not set, so anyone there could run tools here: ` +
        `set ${TOKEN_ENV} to a long random secret, or use --host 127.0.0.1`,
    );
  }
  return token;
}

function readToken(): string | undefined {
  const permission = Deno.permissions.querySync({ name: "env", variable: TOKEN_ENV });
  if (permission.state !== "granted") return undefined;
  const token = Deno.env.get(TOKEN_ENV);
  if (!token) return undefined;
  if (/\s/.test(token)) {
    throw new UsageError(
      `Cannot use ${TOKEN_ENV}: it ${
        token.trim() ? "contains whitespace" : "is only whitespace"
      }, which no bearer token can carry: set it to a long random secret such as ` +
        "the output of `openssl rand -hex 32`",
    );
  }
  return token;
}
