/**
 * The one place colours live. `NO_COLOR` (any value) or a non-terminal turns them off.
 * @module
 */

/** Styling functions; identity when colour is off. */
export interface Styles {
  color: boolean;
  dim(text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

const SGR = {
  dim: [2, 22],
  bold: [1, 22],
  italic: [3, 23],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  magenta: [35, 39],
} as const;

/** Styles with ANSI colour on or off. */
export function createStyles(color: boolean): Styles {
  const wrap = ([open, close]: readonly [number, number]) => (text: string) =>
    color && text ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    color,
    dim: wrap(SGR.dim),
    bold: wrap(SGR.bold),
    italic: wrap(SGR.italic),
    red: wrap(SGR.red),
    green: wrap(SGR.green),
    yellow: wrap(SGR.yellow),
    cyan: wrap(SGR.cyan),
    magenta: wrap(SGR.magenta),
  };
}

/** Whether colour should be used for a stream: a terminal and no `NO_COLOR`. */
export function wantsColor(stream: { isTerminal(): boolean }): boolean {
  const canReadEnv =
    Deno.permissions.querySync({ name: "env", variable: "NO_COLOR" }).state === "granted";
  // no-color.org: only a non-empty NO_COLOR turns colour off.
  const noColor = canReadEnv && (Deno.env.get("NO_COLOR") ?? "") !== "";
  return !noColor && stream.isTerminal();
}
