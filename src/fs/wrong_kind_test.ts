import assert from "node:assert/strict";
import { join } from "./path.ts";
import { describeWrongKind, isWrongKind, pathInError } from "./wrong_kind.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_kind_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("describeWrongKind names a folder read as a file, from Deno's real error", async () => {
  await using dir = await tempDir();
  const folder = join(dir.path, "config.yaml");
  await Deno.mkdir(folder);
  const error = await Deno.readTextFile(folder).catch((e) => e);
  assert.equal(isWrongKind(error), true);
  assert.equal(pathInError(error), folder);
  assert.equal(
    describeWrongKind(folder),
    `"${folder}" is a folder, not a file: move it away or use another path`,
  );
  assert.equal(
    describeWrongKind(folder, { named: true }),
    "it is a folder, not a file: move it away or use another path",
  );
});

Deno.test("describeWrongKind names the file that stands where a folder belongs", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "sessions");
  await Deno.writeTextFile(file, "x\n");
  const below = join(file, "a.jsonl");
  const error = await Deno.readTextFile(below).catch((e) => e);
  assert.equal(isWrongKind(error), true);
  assert.equal(
    describeWrongKind(below),
    `"${file}" is a file, not a folder, so "${below}" cannot exist: move the file away`,
  );
  // Listed as a folder: the path itself is the file.
  const listing = await Array.fromAsync(Deno.readDir(file)).catch((e) => e);
  assert.equal(isWrongKind(listing), true);
  assert.equal(pathInError(listing), file);
  assert.equal(
    describeWrongKind(file),
    `"${file}" is a file, not a folder: move it away or use another path`,
  );
});

Deno.test("isWrongKind: a missing file or another error is not one", async () => {
  const missing = await Deno.readTextFile("/nonexistent/replio").catch((e) => e);
  assert.equal(isWrongKind(missing), false);
  assert.equal(isWrongKind(new TypeError("x")), false);
});
