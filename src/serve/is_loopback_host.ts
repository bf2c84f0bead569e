/**
 * Whether a host name or address stays on this machine, for the bind and `Host` checks.
 * @module
 */

/**
 * Whether `host` is a loopback name or address: `localhost`, `127.0.0.0/8` or `::1`, with or
 * without IPv6 brackets.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isLoopbackHost("127.0.0.1"), true);
 * assert.equal(isLoopbackHost("[::1]"), true);
 * assert.equal(isLoopbackHost("0.0.0.0"), false);
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const v4 = name.replace(/^::ffff:/, "");
  if (/^127(\.\d{1,3}){3}$/.test(v4)) return true;
  return /^(0{0,4}:){2,7}0{0,3}1$/.test(name);
}
