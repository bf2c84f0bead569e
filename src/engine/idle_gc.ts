/**
 * A full garbage collection where nobody waits on it: when the REPL is back at its prompt, and
 * after a compaction has dropped the older history (src/engine/compaction.ts; the collection
 * then runs while the next request is awaited). V8 collects the old generation only when it must,
 * so between two of its collections a long session's resident memory climbs with garbage turns
 * left behind; collected at these points, it stays where the live data is (docs/performance.md,
 * "Soak"). Needs `--v8-flags=--expose-gc` (the start task and the compiled binary pass it);
 * without it this does nothing.
 * @module
 */

/**
 * Schedules one collection for just after the prompt is drawn (a few milliseconds for a REPL's
 * heap; keys typed meanwhile wait in the terminal, none is lost); the returned function cancels
 * it when input came first. The timer never keeps the process alive.
 */
export function collectWhenIdle(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function") return () => {};
  const timer = setTimeout(() => gc(), 0);
  Deno.unrefTimer(timer);
  return () => clearTimeout(timer);
}
