/**
 * The status line under each turn: model, mode, how full the context is, and the session's
 * cost when the provider reports one. It always fits on one line of the terminal.
 * @module
 */

/** What the status line shows. */
export interface Status {
  model: string | null;
  mode: string;
  /** Tokens the last request used. */
  contextTokens: number;
  /** The model's window (config context_window). */
  contextWindow: number;
  /** Summed cost of the session's requests in this REPL; null when none was reported. */
  cost: number | null;
}

/**
 * The status line for `width` columns (0: no limit): the long form, else a short one, else the
 * short one cut with `…`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const status = { model: "gpt-4o", mode: "default", contextTokens: 12_345, contextWindow: 128_000, cost: 0.0123 };
 * assert.equal(formatStatus(status, 0), "model gpt-4o · mode default · context 12,345 / 128,000 tokens (10%) · cost $0.0123");
 * assert.equal(formatStatus(status, 50), "gpt-4o · default · 12.3k/128k (10%) · $0.0123");
 * ```
 */
export function formatStatus(status: Status, width: number): string {
  const model = status.model ?? "no model";
  const share = status.contextWindow > 0
    ? Math.min(999, Math.round((status.contextTokens / status.contextWindow) * 100))
    : 0;
  const cost = status.cost === null ? null : `$${status.cost.toFixed(4)}`;
  const long = [
    `model ${model}`,
    `mode ${status.mode}`,
    `context ${count(status.contextTokens)} / ${count(status.contextWindow)} tokens (${share}%)`,
    ...(cost ? [`cost ${cost}`] : []),
  ].join(" · ");
  if (!width || long.length <= width) return long;
  const short = [
    model,
    status.mode,
    `${compact(status.contextTokens)}/${compact(status.contextWindow)} (${share}%)`,
    ...(cost ? [cost] : []),
  ].join(" · ");
  return short.length <= width ? short : `${short.slice(0, Math.max(1, width - 1))}…`;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** 12345 → 12.3k, 128000 → 128k, 1048576 → 1M. */
function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${trim((n / 1000).toFixed(n < 10_000 ? 2 : n < 100_000 ? 1 : 0))}k`;
  return `${trim((n / 1_000_000).toFixed(1))}M`;
}

function trim(text: string): string {
  return text.replace(/\.0+$/, "").replace(/(\.\d*?)0+$/, "$1");
}
