import assert from "node:assert/strict";
import { isLoopbackHost } from "./is_loopback_host.ts";

Deno.test("isLoopbackHost accepts loopback names and addresses", () => {
  for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
  for (const host of ["0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "app.localhost"]) {
    assert.equal(isLoopbackHost(host), true, host);
  }
});

Deno.test("isLoopbackHost refuses every other host", () => {
  for (const host of ["0.0.0.0", "::", "192.168.1.4", "10.0.0.1", "example.com", "128.0.0.1"]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
  for (const host of ["localhost.example.com", "127.0.0.1.nip.io", "::2", ""]) {
    assert.equal(isLoopbackHost(host), false, host);
  }
});
