import assert from "node:assert/strict";
import { join } from "./path.ts";
import { writeFileAtomic } from "./write_file_atomic.ts";

/** A small text (written synchronously) and a large one (written asynchronously). */
const TEXTS = {
  small: "note 1 / WRITE_OK_1\n",
  large: "é0123456789abcdef\n".repeat(40_000),
};

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_atomic_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

for (const [size, text] of Object.entries(TEXTS)) {
  Deno.test(`writeFileAtomic writes a ${size} text whole, new or replacing, keeping the mode`, async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "note.txt");
    await writeFileAtomic(file, text);
    assert.equal(await Deno.readTextFile(file), text);

    await Deno.chmod(file, 0o640);
    const replaced = text.replaceAll("1", "2");
    await writeFileAtomic(file, replaced);
    assert.deepEqual(
      { text: await Deno.readTextFile(file), mode: (await Deno.stat(file)).mode! & 0o777 },
      { text: replaced, mode: 0o640 },
    );
    // The temporary file was renamed over the target: nothing else is left in the folder.
    assert.deepEqual([...Deno.readDirSync(dir.path)].map((entry) => entry.name), ["note.txt"]);
  });

  Deno.test(`writeFileAtomic leaves nothing behind when a ${size} text has no folder to go to`, async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "missing", "note.txt");
    await assert.rejects(writeFileAtomic(file, text), Deno.errors.NotFound);
    assert.deepEqual([...Deno.readDirSync(dir.path)], []);
  });
}
