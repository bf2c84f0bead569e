/**
 * `/mode`, `/model` and `/config`: the same modes, provider selection and config files as the
 * command line, applied to the running REPL.
 * @module
 */
import { CONFIG_KEYS, editDistance } from "../config/mod.ts";
import { modeNames } from "../tools/mod.ts";
import type { ReplContext, SlashCommand } from "./context.ts";
import { describeMode } from "./mode_cycle.ts";
import { pickModel } from "./model_picker.ts";
import { splitFirst } from "./slash.ts";

/** `/mode [name]`. */
export const modeCommand: SlashCommand = {
  name: "mode",
  usage: "/mode [name]",
  summary: "Show the modes, or switch to one (plan: read and plan only)",
  complete: (repl) => modeNames(repl.config),
  run(repl, args) {
    const name = args.trim();
    if (!name) {
      for (const mode of modeNames(repl.config)) {
        const mark = mode === repl.policy.mode ? "*" : " ";
        const description = describeMode(repl.config, mode);
        repl.print(`${mark} ${mode}  ${repl.styles.dim(description)}`);
      }
      return;
    }
    repl.setMode(name);
    const description = describeMode(repl.config, name);
    repl.print(`Mode ${name}${description ? `: ${description}` : ""}`, repl.styles.dim);
  },
};

/** `/model [name]`. */
export const modelCommand: SlashCommand = {
  name: "model",
  usage: "/model [name]",
  summary: "Pick a model from the endpoint's list, or switch to the one named",
  complete: (repl) => repl.knownModels,
  async run(repl, args) {
    const name = args.trim();
    if (!name) return await chooseModel(repl);
    let checked = "";
    try {
      const models = await repl.listModels();
      if (models && !models.includes(name)) {
        const near = models.map((m) => ({ m, d: editDistance(name, m) }))
          .sort((a, b) => a.d - b.d).slice(0, 3).map(({ m }) => `"${m}"`);
        repl.printError(
          `Cannot use model "${name}": the endpoint does not list it: ` +
            (near.length ? `did you mean ${near.join(" or ")}? ` : "") +
            "(Tab after /model completes the listed names)",
        );
        return;
      }
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      // The list is a check, not a gate: some servers do not serve /models.
      checked = ` (not checked against the endpoint's list: ${error.message})`;
    }
    await repl.setModel(name);
    repl.print(`Model ${name}${checked}`, repl.styles.dim);
  },
};

/** `/config [key [value]] [--global]`. */
export const configCommand: SlashCommand = {
  name: "config",
  usage: "/config [key [value]] [--global]",
  summary: "Show the configuration or a key, or set a key (local file, or --global)",
  complete: () => Object.keys(CONFIG_KEYS),
  async run(repl, args) {
    const global = /(^|\s)--global(\s|$)/.test(args);
    const [key, value] = splitFirst(args.replace(/(^|\s)--global(?=\s|$)/, " "));
    if (!value) {
      await repl.runConfig("get", key || undefined, undefined, global);
      return;
    }
    if (await repl.runConfig("set", key, value, global) !== 0) return;
    await repl.reloadConfig();
    repl.print(`Set ${key} = ${value}${global ? " (global)" : ""}`, repl.styles.dim);
  },
};

/** `/model` alone: a picker of the endpoint's models, or the name and the list without a terminal. */
async function chooseModel(repl: ReplContext): Promise<void> {
  if (!repl.model) {
    repl.printError(repl.modelProblem);
    return;
  }
  let models: string[] | null;
  try {
    models = await repl.listModels();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    repl.print(`Model ${repl.model} (the endpoint did not list its models: ${error.message})`);
    return;
  }
  const terminal = repl.pickerTerminal();
  if (!models?.length || !terminal) {
    repl.print(`Model ${repl.model}`);
    if (models?.length) {
      repl.print(`The endpoint lists: ${models.join(", ")}; /model NAME switches`, repl.styles.dim);
    }
    return;
  }
  const chosen = await pickModel(models, repl.model, terminal);
  if (chosen === null || chosen === repl.model) {
    repl.print(`Model ${repl.model} (unchanged)`, repl.styles.dim);
    return;
  }
  await repl.setModel(chosen);
  repl.print(`Model ${chosen}`, repl.styles.dim);
}
