/**
 * The REPL's one trust question, asked before anything of an untrusted worktree loads: what
 * the folder's own settings would enable, then `[y]es always / [o]nce / [N]o`.
 * @module
 */
import { describeProjectSettings, type FolderTrust, type TrustAnswer } from "../config/mod.ts";
import { wrapText } from "../ui/text_width.ts";
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";

/** Where the question is shown and answered. */
export interface TrustPromptIo {
  out: TextWriter;
  styles: Styles;
  /** Columns to wrap at; 0 (or absent) wraps nothing. */
  width?: number;
  /** One typed line; null at the end of input. */
  readLine(): Promise<string | null>;
}

/** The question; anything but y or o (Enter included) continues untrusted. */
export const TRUST_QUESTION = "Trust this folder? [y]es always / [o]nce / [N]o, continue without ";

/**
 * Shows what the worktree's settings would enable and reads the answer.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createStyles } from "../ui/styles.ts";
 * import { StringWriter } from "../ui/writer.ts";
 * const out = new StringWriter();
 * const answer = await askFolderTrust({
 *   worktree: "/x",
 *   trusted: false,
 *   by: null,
 *   ignored: {
 *     configFile: "/x/.replio/config.yaml",
 *     values: { plugins: ["p.ts"] },
 *     kept: [],
 *     invalid: null,
 *     agentFiles: [],
 *     pluginsFolder: false,
 *     worktreePlugins: [],
 *   },
 * }, { out, styles: createStyles(false), readLine: () => Promise.resolve("o") });
 * assert.equal(answer, "once");
 * assert.match(out.text, /plugins \(code run at start-up\): p\.ts/);
 * ```
 */
export async function askFolderTrust(trust: FolderTrust, io: TrustPromptIo): Promise<TrustAnswer> {
  const { out, styles } = io;
  const ignored = trust.ignored!;
  const lines = describeProjectSettings(ignored);
  // Wrapped at word boundaries here: the terminal would cut words (`tool_permissio` / `n.bash`).
  const wrap = (text: string, indent = "  ") =>
    io.width ? wrapText(text, io.width - 1, indent).join("\n") : text;
  const kept = ignored.kept.length
    ? styles.dim(`${wrap(`Applied already, as they only tighten: ${ignored.kept.join(", ")}`)}\n`)
    : "";
  const question = wrap(TRUST_QUESTION.trimEnd(), "");
  out.write(
    `${styles.yellow(wrap(`${trust.worktree} is not a trusted folder.`))}\n` +
      `${
        wrap("Its own replio settings (.replio/) were not loaded. Trusted, they would enable:")
      }\n` +
      lines.map((line) => `${wrap(`  - ${line}`, "    ")}\n`).join("") + kept +
      styles.dim(`${wrap("Only trust folders whose contents you trust as your own.")}\n`) +
      `${question} `,
  );
  const text = (await io.readLine())?.trim().toLowerCase() ?? "";
  const answer: TrustAnswer = ["y", "yes"].includes(text)
    ? "always"
    : ["o", "once"].includes(text)
    ? "once"
    : "no";
  const said = answer === "always"
    ? `Trusted ${trust.worktree}: added to trusted_folders of the global config`
    : answer === "once"
    ? "Trusted for this session"
    : `Continuing without the folder's settings; run "replio trust" to load them`;
  out.write(styles.dim(`${wrap(said)}\n`));
  return answer;
}
