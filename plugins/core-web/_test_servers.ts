/**
 * Test support for the web tools: HTTP servers on 127.0.0.1 with scripted routes, and a fake
 * DNS server the private-address check can be pointed at. Used by tests only.
 * @module
 */
import dgram from "node:dgram";
import { dnsOverride } from "./_check_host.ts";

/** A route: answers a request; `hang` gives a promise that settles only when the server stops. */
export type Route = (request: Request, hang: () => Promise<never>) => Response | Promise<Response>;

/** A running test server. */
export interface TestServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Every request as `METHOD /path?query`, in order. */
  requests: string[];
  /** Request bodies, in order (empty for GET). */
  bodies: string[];
  /** Request headers, in order. */
  headers: Headers[];
}

/** Serves `routes` by path (a path without a route gets 404) on 127.0.0.1. */
export function serveRoutes(routes: Record<string, Route>): TestServer {
  const requests: string[] = [];
  const bodies: string[] = [];
  const headers: Headers[] = [];
  const hung: (() => void)[] = [];
  const hang = () =>
    new Promise<never>((_, reject) => hung.push(() => reject(new Error("server stopped"))));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, onError: () => new Response(null) },
    async (request) => {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      bodies.push(await request.text());
      headers.push(request.headers);
      const route = routes[url.pathname];
      return route ? await route(request, hang) : new Response("no such page", { status: 404 });
    },
  );
  return {
    origin: `http://127.0.0.1:${server.addr.port}`,
    requests,
    bodies,
    headers,
    async [Symbol.asyncDispose]() {
      for (const release of hung) release();
      await server.shutdown();
    },
  };
}

/** A fake DNS server answering A and AAAA queries from `records`; other names get NXDOMAIN. */
export async function fakeDns(
  records: Record<string, string[]>,
): Promise<AsyncDisposable> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  socket.on("message", (query: Uint8Array, peer: { port: number; address: string }) => {
    socket.send(answerDns(query, records), peer.port, peer.address);
  });
  dnsOverride.nameServer = { ipAddr: "127.0.0.1", port: socket.address().port };
  return {
    async [Symbol.asyncDispose]() {
      dnsOverride.nameServer = null;
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

/** A DNS reply (RFC 1035 §4) to a one-question query. */
function answerDns(query: Uint8Array, records: Record<string, string[]>): Uint8Array {
  let at = 12;
  const labels: string[] = [];
  while (query[at]! > 0) {
    labels.push(new TextDecoder().decode(query.subarray(at + 1, at + 1 + query[at]!)));
    at += query[at]! + 1;
  }
  const type = (query[at + 1]! << 8) | query[at + 2]!;
  const question = query.subarray(12, at + 5);
  const name = labels.join(".").toLowerCase();
  const known = name in records;
  const family = type === 1 ? 4 : type === 28 ? 6 : 0;
  const addresses = (records[name] ?? []).filter((a) => (a.includes(":") ? 6 : 4) === family);
  const answers = addresses.map((address) => {
    const data = family === 4 ? address.split(".").map(Number) : ipv6Bytes(address);
    // Name pointer to the question, type, class IN, TTL 0, then the address.
    return [0xc0, 12, 0, type, 0, 1, 0, 0, 0, 0, 0, data.length, ...data];
  });
  const header = [
    query[0]!,
    query[1]!,
    0x81, // response, recursion desired
    known ? 0x80 : 0x83, // recursion available; NXDOMAIN for unknown names
    0,
    1,
    0,
    answers.length,
    0,
    0,
    0,
    0,
  ];
  return new Uint8Array([...header, ...question, ...answers.flat()]);
}

function ipv6Bytes(address: string): number[] {
  const [head = "", tail = ""] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
}
