import assert from "node:assert/strict";
import { withDeadline } from "../../tests/support/deadline.ts";
import { CallDeadline } from "./call_deadline.ts";

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(signal.reason)));
}

Deno.test("CallDeadline never fires while paused, and fires once the pause ends", async () => {
  using deadline = new CallDeadline(0);
  // Paused before its timer could run: however long the pause, the deadline cannot pass in it.
  await deadline.paused(async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(deadline.signal.aborted, false);
  });
  const reason = await withDeadline(aborted(deadline.signal), "the deadline after its pause");
  assert.ok(reason instanceof DOMException && reason.name === "TimeoutError");
});
