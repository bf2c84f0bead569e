import assert from "node:assert/strict";
import { HttpError } from "./http_error.ts";
import { SessionLocks } from "./session_locks.ts";

function assertBusy(locks: SessionLocks, id: string): void {
  assert.throws(() => locks.acquire(id), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 409);
    assert.equal(error.code, "session_busy");
    return true;
  });
}

Deno.test("SessionLocks refuses a second turn in a busy session with 409 until released", () => {
  const locks = new SessionLocks();
  const held = locks.acquire("ses_a");
  assertBusy(locks, "ses_a");
  using other = locks.acquire("ses_b");
  held[Symbol.dispose]();
  held[Symbol.dispose]();
  using again = locks.acquire("ses_a");
  assertBusy(locks, "ses_a");
  assertBusy(locks, "ses_b");
  assert.ok(other && again);
});
