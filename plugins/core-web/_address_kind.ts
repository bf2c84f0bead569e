/**
 * Classifies IP addresses a web tool must not reach by default: loopback, private, link-local,
 * cloud metadata and other non-public ranges, for IPv4 and IPv6 (mapped and embedded IPv4
 * included, so `::ffff:127.0.0.1` is as refused as `127.0.0.1`).
 * @module
 */

/** IPv4 ranges, most specific first: the first match names the address. */
const IPV4_RANGES: readonly (readonly [cidr: string, phrase: string])[] = [
  ["169.254.169.254/32", "a cloud metadata address"], // AWS, GCP, Azure, OpenStack
  ["0.0.0.0/8", "an unspecified address"], // "this network": 0.0.0.0 reaches the local host
  ["10.0.0.0/8", "a private address"],
  ["100.64.0.0/10", "a shared (carrier-grade NAT) address"], // holds Alibaba's metadata too
  ["127.0.0.0/8", "a loopback address"],
  ["169.254.0.0/16", "a link-local address"],
  ["172.16.0.0/12", "a private address"],
  ["192.0.0.0/24", "a reserved address"], // IETF assignments, Oracle's metadata 192.0.0.192
  ["192.168.0.0/16", "a private address"],
  ["198.18.0.0/15", "a reserved address"], // network benchmarking, often internal
  ["224.0.0.0/4", "a multicast address"],
  ["240.0.0.0/4", "a reserved address"], // includes the broadcast address
];

/** IPv6 ranges refused outright; the embedded-IPv4 forms are handled in {@link addressKind}. */
const IPV6_RANGES: readonly (readonly [cidr: string, phrase: string])[] = [
  ["::/128", "an unspecified address"],
  ["::1/128", "a loopback address"],
  ["fd00:ec2::254/128", "a cloud metadata address"], // AWS over IPv6
  ["64:ff9b:1::/48", "a private address"], // local-use NAT64
  ["100::/64", "a reserved address"], // discard-only
  ["2001::/32", "a reserved address"], // Teredo: the real endpoint is hidden in the address
  ["fc00::/7", "a private address"], // unique local
  ["fe80::/10", "a link-local address"],
  ["fec0::/10", "a private address"], // site-local, deprecated but still routed by some
  ["ff00::/8", "a multicast address"],
];

/** IPv6 prefixes whose low bits carry an IPv4 address that decides instead. */
const IPV6_EMBEDDING: readonly (readonly [cidr: string, shift: bigint])[] = [
  ["::ffff:0:0/96", 0n], // IPv4-mapped
  ["::/96", 0n], // IPv4-compatible (deprecated)
  ["64:ff9b::/96", 0n], // NAT64: the gateway connects to the embedded address
  ["2002::/16", 80n], // 6to4: bits 16-48
];

/**
 * The kind of non-public address `ip` is, as a phrase for messages, or null for a public one.
 * Accepts dotted IPv4 and IPv6 (brackets and a zone id are ignored); anything else is null.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(addressKind("127.0.0.1"), "a loopback address");
 * assert.equal(addressKind("[::ffff:a00:1]"), "a private address");
 * assert.equal(addressKind("169.254.169.254"), "a cloud metadata address");
 * assert.equal(addressKind("93.184.216.34"), null);
 * ```
 */
export function addressKind(ip: string): string | null {
  const v4 = parseIpv4(ip);
  if (v4 !== null) return matchRanges(v4, 32, IPV4_RANGES);
  const v6 = parseIpv6(ip);
  if (v6 === null) return null;
  const direct = matchRanges(v6, 128, IPV6_RANGES);
  if (direct !== null) return direct;
  for (const [cidr, shift] of IPV6_EMBEDDING) {
    if (inCidr(v6, 128, cidr)) {
      return matchRanges((v6 >> shift) & 0xffff_ffffn, 32, IPV4_RANGES);
    }
  }
  return null;
}

/** Whether `ip` is an IPv4 or IPv6 literal rather than a host name. */
export function isIpLiteral(ip: string): boolean {
  return parseIpv4(ip) !== null || parseIpv6(ip) !== null;
}

function matchRanges(
  address: bigint,
  bits: 32 | 128,
  ranges: readonly (readonly [string, string])[],
): string | null {
  return ranges.find(([cidr]) => inCidr(address, bits, cidr))?.[1] ?? null;
}

function inCidr(address: bigint, bits: 32 | 128, cidr: string): boolean {
  const [base = "", prefix = ""] = cidr.split("/");
  const network = bits === 32 ? parseIpv4(base) : parseIpv6(base);
  const shift = BigInt(bits - Number(prefix));
  return network !== null && address >> shift === network >> shift;
}

/** Dotted-quad IPv4 only: URL parsing has already turned `0x7f.1` and `2130706433` into it. */
function parseIpv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) {
    return null;
  }
  return parts.reduce((sum, part) => (sum << 8n) | BigInt(part), 0n);
}

function parseIpv6(text: string): bigint | null {
  let body = text.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (!body.includes(":")) return null;
  const tail = body.match(/:(\d+\.\d+\.\d+\.\d+)$/);
  if (tail) {
    const v4 = parseIpv4(tail[1]!);
    if (v4 === null) return null;
    body = `${body.slice(0, -tail[1]!.length)}${(v4 >> 16n).toString(16)}:${
      (v4 & 0xffffn).toString(16)
    }`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const rest = halves.length === 2 && halves[1] !== "" ? halves[1]!.split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.reduce((sum, group) => (sum << 16n) | BigInt(`0x${group}`), 0n);
}
