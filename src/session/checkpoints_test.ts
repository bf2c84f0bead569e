import assert from "node:assert/strict";
import { join } from "../fs/path.ts";
import { Checkpoints } from "./checkpoints.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "replio_checkpoints_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("a turn's checkpoint puts back a changed file and removes a created one, in a later process too", async () => {
  await using dir = await tempDir();
  const changed = join(dir.path, "a.txt");
  const created = join(dir.path, "b.txt");
  await Deno.writeTextFile(changed, "before\n");
  const store = join(dir.path, "s.checkpoints");
  const checkpoints = new Checkpoints(store);
  await checkpoints.save(1, changed);
  await checkpoints.save(1, created);
  await checkpoints.save(1, changed); // saved once per turn: the first content counts
  await Deno.writeTextFile(changed, "after\n");
  await Deno.writeTextFile(created, "new\n");

  // A resumed session reads what the first process wrote, not its memory.
  const resumed = new Checkpoints(store);
  assert.deepEqual(await resumed.changedFiles(), [
    { path: changed, before: "before\n", after: "after\n" },
    { path: created, before: null, after: "new\n" },
  ]);
  assert.deepEqual(await resumed.restore(1), [
    { path: changed, action: "restored" },
    { path: created, action: "removed" },
  ]);
  assert.equal(await Deno.readTextFile(changed), "before\n");
  await assert.rejects(Deno.stat(created), Deno.errors.NotFound);
  assert.equal(await resumed.latestTurn(), null);
});

Deno.test("a save cut short by a crash leaves the turn's other saves usable, later ones too", async () => {
  await using dir = await tempDir();
  const first = join(dir.path, "a.txt");
  const later = join(dir.path, "b.txt");
  await Deno.writeTextFile(first, "before\n");
  await Deno.writeTextFile(later, "before b\n");
  const store = join(dir.path, "s.checkpoints");
  await new Checkpoints(store).save(1, first);
  // The next save's line was being appended when the process died; a resumed turn goes on.
  await Deno.writeTextFile(join(store, "turn-1", "manifest.jsonl"), '\n{"path":"/x","co', {
    append: true,
  });
  await new Checkpoints(store).save(1, later);
  await Deno.writeTextFile(first, "after\n");
  await Deno.writeTextFile(later, "after b\n");
  assert.deepEqual(await new Checkpoints(store).restore(1), [
    { path: first, action: "restored" },
    { path: later, action: "restored" },
  ]);
  assert.equal(await Deno.readTextFile(first), "before\n");
  assert.equal(await Deno.readTextFile(later), "before b\n");
});

Deno.test("a checkpoint written by an earlier replio (one manifest.json array) is still restored", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "a.txt");
  const turn = join(dir.path, "s.checkpoints", "turn-3");
  await Deno.mkdir(turn, { recursive: true });
  await Deno.writeTextFile(join(turn, "0.bak"), "before\n");
  await Deno.writeTextFile(
    join(turn, "manifest.json"),
    JSON.stringify([{ path: file, copy: "0.bak" }]),
  );
  await Deno.writeTextFile(file, "after\n");
  const checkpoints = new Checkpoints(join(dir.path, "s.checkpoints"));
  assert.equal(await checkpoints.latestTurn(), 3);
  await checkpoints.restore(3);
  assert.equal(await Deno.readTextFile(file), "before\n");
});
