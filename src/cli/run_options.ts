/**
 * `replio run`'s options as data: commander builds the `run` command from this table
 * (program.ts), and {@link parseRunArgv} reads the common command lines with it directly, so
 * a headless run reaches its first model request without loading commander and the Node
 * shims it pulls in (about 30 ms of every `replio run`). Anything it does not read plainly
 * (help, an unknown or malformed option) goes to commander, which owns every message.
 * `tests/run_options_test.ts` checks both give the same options.
 * @module
 */

/** One option of `run`, in commander's notation. */
export interface RunOption {
  /** `--model <model>`, `-c, --continue`. */
  flags: string;
  description: string;
  /** The only values allowed. */
  choices?: readonly string[];
  default?: string;
  /** A whole number >= 1. */
  positiveInt?: boolean;
}

export const RUN_OPTIONS: readonly RunOption[] = [
  {
    flags: "--output <format>",
    description: "output format",
    choices: ["text", "json", "stream-json"],
    default: "text",
  },
  { flags: "--yes", description: "allow ask-gated tools without asking" },
  { flags: "--no", description: "deny ask-gated tools (the default)" },
  { flags: "--model <model>", description: "model name" },
  { flags: "--base-url <url>", description: "OpenAI-compatible endpoint URL" },
  { flags: "--session <id>", description: "continue or create this session" },
  { flags: "-c, --continue", description: "continue the latest session in this worktree" },
  { flags: "--mode <mode>", description: "mode for this turn" },
  { flags: "--permission-mode <mode>", description: "the same as --mode (e.g. accept-edits)" },
  { flags: "--path <dir>", description: "worktree (default: the current directory)" },
  {
    flags: "--trust",
    description: "load this folder's .replio/ settings for this run (see replio trust)",
  },
  {
    flags: "--max-rounds <n>",
    description: "end the turn after N model rounds",
    positiveInt: true,
  },
  {
    flags: "--park",
    description: "stop at the first ask-gated call and wait for replio approve (exit 4)",
  },
  {
    flags: "--resume <id>",
    description: "continue this session's parked turn after approve or deny",
  },
];

/** A positive integer, or null. */
export function positiveInt(value: string): number | null {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

interface Spec {
  /** commander's attribute name: `--base-url` → `baseUrl`. */
  key: string;
  takesValue: boolean;
  option: RunOption;
}

/** What an option sets, and the spellings it answers to (`--continue`, `-c`). */
function specOf(option: RunOption): { spec: Spec; spellings: string[] } {
  const match = /^(?:(-\w), )?--([\w-]+)(?: <\w+>)?$/.exec(option.flags)!;
  const key = match[2]!.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return {
    spec: { key, takesValue: option.flags.endsWith(">"), option },
    spellings: match[1] ? [`--${match[2]}`, match[1]] : [`--${match[2]}`],
  };
}

/**
 * `run`'s arguments (after `run`) as commander would parse them: the prompt words and the
 * options; null for anything better left to commander (help, an unknown option, a bad value).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseRunArgv(["fix", "it", "--yes", "--max-rounds=3"]), {
 *   prompt: ["fix", "it"],
 *   options: { output: "text", yes: true, maxRounds: 3 },
 * });
 * assert.equal(parseRunArgv(["--help"]), null);
 * ```
 */
export function parseRunArgv(
  argv: readonly string[],
): { prompt: string[]; options: Record<string, unknown> } | null {
  const byFlag = new Map<string, Spec>();
  const options: Record<string, unknown> = {};
  for (const option of RUN_OPTIONS) {
    const { spec, spellings } = specOf(option);
    for (const spelling of spellings) byFlag.set(spelling, spec);
    if (option.default !== undefined) options[spec.key] = option.default;
  }
  const prompt: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") {
      prompt.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      prompt.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const spec = byFlag.get(flag);
    if (!spec) return null;
    if (!spec.takesValue) {
      if (eq !== -1) return null;
      options[spec.key] = true;
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    // A missing value, or one that looks like an option: commander words the message.
    if (value === undefined || (eq === -1 && value.startsWith("-"))) return null;
    if (spec.option.choices && !spec.option.choices.includes(value)) return null;
    if (spec.option.positiveInt) {
      const n = positiveInt(value);
      if (n === null) return null;
      options[spec.key] = n;
    } else {
      options[spec.key] = value;
    }
  }
  return { prompt, options };
}
