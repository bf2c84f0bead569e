import assert from "node:assert/strict";
import { addressKind, isIpLiteral } from "./_address_kind.ts";

Deno.test("addressKind names every non-public IPv4 range", () => {
  const cases: Record<string, string | null> = {
    "0.0.0.0": "an unspecified address",
    "10.20.30.40": "a private address",
    "100.64.0.1": "a shared (carrier-grade NAT) address",
    "100.100.100.200": "a shared (carrier-grade NAT) address",
    "127.0.0.1": "a loopback address",
    "127.255.255.254": "a loopback address",
    "169.254.169.254": "a cloud metadata address",
    "169.254.1.1": "a link-local address",
    "172.16.0.1": "a private address",
    "172.31.255.255": "a private address",
    "172.32.0.1": null,
    "192.0.0.192": "a reserved address",
    "192.168.1.1": "a private address",
    "198.18.0.1": "a reserved address",
    "224.0.0.251": "a multicast address",
    "255.255.255.255": "a reserved address",
    "8.8.8.8": null,
    "93.184.216.34": null,
    "203.0.113.7": null,
  };
  assert.deepEqual(
    Object.fromEntries(Object.keys(cases).map((ip) => [ip, addressKind(ip)])),
    cases,
  );
});

Deno.test("addressKind names IPv6 ranges and embedded IPv4", () => {
  const cases: Record<string, string | null> = {
    "::": "an unspecified address",
    "::1": "a loopback address",
    "[::1]": "a loopback address",
    "0:0:0:0:0:0:0:1": "a loopback address",
    "::ffff:127.0.0.1": "a loopback address",
    "::ffff:7f00:1": "a loopback address",
    "[::ffff:a9fe:a9fe]": "a cloud metadata address",
    "::ffff:8.8.8.8": null,
    "::127.0.0.1": "a loopback address",
    "64:ff9b::a00:1": "a private address",
    "64:ff9b::808:808": null,
    "2002:c0a8:101::1": "a private address",
    "2002:808:808::1": null,
    "fd00:ec2::254": "a cloud metadata address",
    "fd12:3456::1": "a private address",
    "fc00::1": "a private address",
    "fe80::1%eth0": "a link-local address",
    "febf::1": "a link-local address",
    "fec0::1": "a private address",
    "ff02::1": "a multicast address",
    "2001::1": "a reserved address",
    "2001:4860:4860::8888": null,
    "2606:4700::1111": null,
  };
  assert.deepEqual(
    Object.fromEntries(Object.keys(cases).map((ip) => [ip, addressKind(ip)])),
    cases,
  );
});

Deno.test("isIpLiteral tells addresses from host names", () => {
  assert.deepEqual(
    ["127.0.0.1", "[::1]", "fe80::1", "example.com", "1.2.3", "1::2::3", "256.0.0.1"].map(
      isIpLiteral,
    ),
    [true, true, true, false, false, false, false],
  );
});
