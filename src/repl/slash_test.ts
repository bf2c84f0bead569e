import assert from "node:assert/strict";
import { nearestName, parseSlash, splitFirst } from "./slash.ts";

Deno.test("parseSlash splits the name from the arguments", () => {
  assert.deepEqual(parseSlash("  /Mode plan "), { name: "mode", args: "plan" });
  assert.deepEqual(parseSlash("/help"), { name: "help", args: "" });
  assert.deepEqual(parseSlash('/tool file_read {"path":\n"x"}'), {
    name: "tool",
    args: 'file_read {"path":\n"x"}',
  });
});

Deno.test("parseSlash leaves messages and paths alone", () => {
  assert.equal(parseSlash("explain /help"), null);
  assert.equal(parseSlash("/usr/bin/env is what?"), null);
  assert.equal(parseSlash("/"), null);
  assert.equal(parseSlash("/1abc"), null);
});

Deno.test("splitFirst takes the first word and keeps the rest whole", () => {
  assert.deepEqual(splitFirst("  tool_permission.bash   allow "), [
    "tool_permission.bash",
    "allow",
  ]);
  assert.deepEqual(splitFirst("list"), ["list", ""]);
});

Deno.test("nearestName prefers a prefix and rejects far names", () => {
  const names = ["help", "tool", "tools", "mode", "model", "compact", "clear", "exit"];
  assert.equal(nearestName("comp", names), "compact");
  assert.equal(nearestName("cmopact", names), "compact");
  assert.equal(nearestName("exti", names), "exit");
  assert.equal(nearestName("banana", names), null);
});
