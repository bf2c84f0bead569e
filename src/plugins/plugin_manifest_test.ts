import assert from "node:assert/strict";
import {
  allowedKeys,
  ManifestError,
  narrowPermissions,
  parseManifest,
  resolvePermissionPaths,
  workerLabel,
} from "./plugin_manifest.ts";

Deno.test("parseManifest reads the replio-plugin comment and refuses what it cannot grant", () => {
  assert.deepEqual(
    parseManifest(`/*! replio-plugin\n{"permissions": {"read": ["a", "a"], "run": []}}\n*/`),
    { read: ["a"] },
  );
  assert.throws(() => parseManifest("/*! replio-plugin {nope} */"), ManifestError);
  assert.throws(
    () => parseManifest('/*! replio-plugin {"permissions": {"ffi": ["x"]}} */'),
    /name "ffi": use read, write, net, env, run/,
  );
  assert.throws(
    () => parseManifest('/*! replio-plugin {"permissions": {"net": true}} */'),
    /there is no "all"/,
  );
});

Deno.test("resolvePermissionPaths puts relative paths under the worktree and ~ under HOME", () => {
  assert.deepEqual(
    resolvePermissionPaths({ read: ["data", "~/.notes", "/etc/x"], net: ["h"] }, "/w", "/home/u"),
    { read: ["/w/data", "/home/u/.notes", "/etc/x"], net: ["h"] },
  );
});

Deno.test("narrowPermissions keeps only what the user granted", () => {
  const { permissions, dropped } = narrowPermissions(
    { net: ["a.example", "b.example"], env: ["X"] },
    { net: ["a.example"] },
  );
  assert.deepEqual(permissions, { net: ["a.example"] });
  assert.deepEqual(dropped, ["net=b.example", "env=X"]);
});

Deno.test("allowedKeys judges a Worker by its reach; workerLabel names it", () => {
  assert.deepEqual(allowedKeys({ write: ["/o"], net: ["h"] }), ["bash"]);
  assert.deepEqual(allowedKeys({ net: ["h"] }), ["web", "bash"]);
  assert.equal(allowedKeys({ env: ["X"] }), null);
  assert.equal(workerLabel({}), "worker(none)");
  assert.equal(workerLabel({ net: ["a", "b"], read: ["/r"] }), "worker(read=/r, net=a;b)");
});
