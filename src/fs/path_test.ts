import assert from "node:assert/strict";
import { posix } from "node:path";
import { seededRandom } from "../../tests/support/seeded_random.ts";
import {
  basename,
  dirname,
  isAbsolute,
  join,
  normalize,
  relative,
  resolve,
  rootOf,
} from "./path.ts";

/** Paths from the parts that make path functions go wrong: dots, doubled and trailing slashes. */
function paths(count: number): string[] {
  const next = seededRandom(42);
  const parts = ["a", "b", "src", "..", ".", "", "x.ts", ".git", "a b", "é"];
  const out = ["", "/", "//", ".", "..", "./", "../", "/..", "a/", "/a/", "//a", "a//b//"];
  for (let i = 0; i < count; i++) {
    const n = 1 + Math.floor(next() * 5);
    const segments = Array.from({ length: n }, () => parts[Math.floor(next() * parts.length)]);
    const lead = next() < 0.5 ? "/" : "";
    const trail = next() < 0.2 ? "/" : "";
    out.push(lead + segments.join(next() < 0.1 ? "//" : "/") + trail);
  }
  return out;
}

Deno.test("path: the same results as Node's path.posix on generated paths", () => {
  const all = paths(3000);
  for (const p of all) {
    assert.equal(normalize(p), posix.normalize(p), `normalize(${JSON.stringify(p)})`);
    assert.equal(dirname(p), posix.dirname(p), `dirname(${JSON.stringify(p)})`);
    assert.equal(basename(p), posix.basename(p), `basename(${JSON.stringify(p)})`);
    assert.equal(isAbsolute(p), posix.isAbsolute(p), `isAbsolute(${JSON.stringify(p)})`);
    assert.equal(resolve(p), posix.resolve(p), `resolve(${JSON.stringify(p)})`);
    assert.equal(rootOf(p), posix.parse(p).root, `rootOf(${JSON.stringify(p)})`);
  }
  for (let i = 0; i + 2 < all.length; i += 3) {
    const [a, b, c] = [all[i]!, all[i + 1]!, all[i + 2]!];
    assert.equal(join(a, b, c), posix.join(a, b, c), `join(${JSON.stringify([a, b, c])})`);
    assert.equal(resolve(a, b, c), posix.resolve(a, b, c), `resolve(${JSON.stringify([a, b, c])})`);
    assert.equal(relative(a, b), posix.relative(a, b), `relative(${JSON.stringify([a, b])})`);
  }
  assert.equal(join(), posix.join());
  assert.equal(resolve(), posix.resolve());
});
