/**
 * The private-address check behind web_fetch: a host is refused when it is, or resolves to, a
 * loopback, private, link-local or metadata address, so a prompt-injected page cannot steer the
 * model into the user's intranet or cloud credentials.
 *
 * Residual risk (DNS rebinding): the check resolves the name with `Deno.resolveDns`, and `fetch`
 * then resolves it again through the system resolver. A hostile DNS server with a zero TTL can
 * answer a public address to the first lookup and a private one to the second. Closing that gap
 * needs connecting to the checked address itself, which `fetch` does not offer while keeping
 * TLS names; run replio with `--deny-net=<ranges>` where that risk matters.
 * @module
 */
import { addressKind, isIpLiteral } from "./_address_kind.ts";

/**
 * The DNS server names are resolved with; `null` asks the system's. Only tests set it, pointing
 * it at a fake DNS server on 127.0.0.1: it is the one way to make a public-looking name resolve
 * to 127.0.0.1 without network access or editing /etc/hosts, and the real resolver still runs.
 */
export const dnsOverride: { nameServer: { ipAddr: string; port: number } | null } = {
  nameServer: null,
};

/** The outcome of {@link checkHost}. */
export type HostCheck =
  | { kind: "public" }
  | { kind: "private"; address: string; phrase: string }
  | { kind: "unresolved"; detail: string }
  /** Deno may not reach the DNS server (e.g. `--allow-net=<hosts>` without it). */
  | { kind: "dns-denied"; detail: string };

/**
 * Whether `hostname` (as `URL.hostname` gives it) is safe to fetch: IP literals are judged
 * directly, names by every A and AAAA address they resolve to.
 */
export async function checkHost(hostname: string, signal: AbortSignal): Promise<HostCheck> {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (isIpLiteral(host)) {
    const phrase = addressKind(host);
    return phrase === null
      ? { kind: "public" }
      : { kind: "private", address: host.replace(/^\[(.*)\]$/, "$1"), phrase };
  }
  // RFC 6761: these names are loopback whatever a DNS server says.
  if (host === "localhost" || host.endsWith(".localhost")) {
    return { kind: "private", address: "127.0.0.1", phrase: "a loopback address" };
  }
  let resolved;
  try {
    resolved = await resolveAddresses(host, signal);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    return { kind: "dns-denied", detail: error.message };
  }
  const { addresses, failure } = resolved;
  // Fail closed: an address family that could not be looked up might hold the private one.
  if (failure !== null || addresses.length === 0) {
    return { kind: "unresolved", detail: failure ?? "no address" };
  }
  for (const address of addresses) {
    const phrase = addressKind(address);
    if (phrase !== null) return { kind: "private", address, phrase };
  }
  return { kind: "public" };
}

/** Every A and AAAA address; `failure` describes a lookup that failed other than by NotFound. */
async function resolveAddresses(
  host: string,
  signal: AbortSignal,
): Promise<{ addresses: string[]; failure: string | null }> {
  const options = dnsOverride.nameServer === null
    ? { signal }
    : { signal, nameServer: dnsOverride.nameServer };
  const answers = await Promise.allSettled([
    Deno.resolveDns(host, "A", options),
    Deno.resolveDns(host, "AAAA", options),
  ]);
  signal.throwIfAborted();
  const addresses: string[] = [];
  let failure: string | null = null;
  for (const answer of answers) {
    if (answer.status === "fulfilled") {
      addresses.push(...answer.value);
    } else if (answer.reason instanceof Deno.errors.NotCapable) {
      throw answer.reason;
    } else if (!(answer.reason instanceof Deno.errors.NotFound)) {
      // A name with only A or only AAAA records fails the other query with NotFound; other
      // failures (no resolver reachable) are reported, and the host is never assumed public.
      failure = answer.reason instanceof Error ? answer.reason.message : String(answer.reason);
    }
  }
  return { addresses, failure };
}
