/**
 * The signals that end replio (SIGINT, SIGTERM, SIGHUP) end it through `Deno.exit`, so that its
 * `unload` listeners run: they stop the MCP servers (each in a process group of its own, which
 * no signal to replio reaches) and the commands still running. Left to its default action, such
 * a signal kills replio without running any of its code, and those processes outlive it: a
 * Ctrl-C while MCP servers start, a closed terminal, the SIGTERM an MCP client sends `replio mcp`.
 * A front-end that handles a signal itself (`replio run` cancels its turn on SIGINT) takes it
 * with {@link handleSignals} for as long as its handler is in place.
 * @module
 */

/** The exit code for each signal: 128 plus its number, as a shell reports a process it ended. */
const EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that ends replio unless a front-end handles it. */
export type EndingSignal = keyof typeof EXIT_CODES;

/** How many handlers hold each signal. */
const holds = new Map<EndingSignal, number>();
let isInstalled = false;

/** Makes each ending signal exit replio (with `unload`) whenever no front-end handles it. */
export function exitOnSignals(): void {
  // Windows has no SIGTERM or SIGHUP to listen to, nor process groups to end.
  if (isInstalled || Deno.build.os === "windows") return;
  isInstalled = true;
  for (const [name, code] of Object.entries(EXIT_CODES) as [EndingSignal, number][]) {
    Deno.addSignalListener(name, () => {
      if (holds.get(name)) return;
      // SIGTERM waits for this signal's other listeners: the REPL's own handler restores the
      // terminal, then exits itself. The others exit at once, as the default action would: no
      // more of replio's work starts (a hung-up REPL writing its files while they are removed).
      if (name === "SIGTERM") setTimeout(() => Deno.exit(code), 0);
      else Deno.exit(code);
    });
  }
}

/** Runs `listener` on each of `signals` instead of exiting, until disposed. */
export function handleSignals(signals: readonly EndingSignal[], listener: () => void): Disposable {
  for (const name of signals) {
    holds.set(name, (holds.get(name) ?? 0) + 1);
    Deno.addSignalListener(name, listener);
  }
  let isDisposed = false;
  return {
    [Symbol.dispose]() {
      if (isDisposed) return;
      isDisposed = true;
      for (const name of signals) {
        Deno.removeSignalListener(name, listener);
        holds.set(name, (holds.get(name) ?? 1) - 1);
      }
    },
  };
}
