/**
 * The completion table (completions.ts) written as a bash, zsh or fish script. Each script finds
 * where the command line is (`sessions`, `sessions list`) by walking the words typed so far,
 * skipping an option's value, then offers that command's subcommands, options, an option's
 * choices or folders, or its argument's.
 * @module
 */
import { allNodes, type CompletionNode, type ValueKind } from "./completions.ts";
import { shellQuote } from "../tools/shell_quote.ts";

/** `replio completions bash`. */
export function renderBash(table: CompletionNode): string {
  const nodes = allNodes(table);
  const words = (list: readonly string[]) => `words=${shellQuote(list.join(" "))}`;
  return `# Tab completion for replio in bash, written by \`replio completions bash\` from the command
# table \`replio --help\` shows. Load it with: source <(replio completions bash)
_replio() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} at="" word words="" skip=0 i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    case "$at|$word" in
${walkCases(nodes, (to) => `at=${shellQuote(to)}`, "skip=1", "      ", " ;;")}
    esac
  done
  case "$at|$prev" in
${valueCases(nodes, (value) => bashValue(value, "return"), "    ")}
  esac
  if [[ $cur == -* ]]; then
    case "$at" in
${
    nodes.map((node) =>
      `      ${shellQuote(at(node))}) ${words(node.options.flatMap(longFirst))} ;;`
    ).join("\n")
  }
    esac
  else
    case "$at" in
${
    nodes.map((node) => {
      const names = node.subcommands.flatMap((sub) => sub.names);
      const action = names.length
        ? words(names)
        : node.argument
        ? bashValue(node.argument, "return")
        : "return";
      return `      ${shellQuote(at(node))}) ${action} ;;`;
    }).join("\n")
  }
    esac
  fi
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -F _replio replio
`;
}

/** `replio completions zsh`: a `#compdef` file for $fpath, or sourced after compinit. */
export function renderZsh(table: CompletionNode): string {
  const nodes = allNodes(table);
  const entries = (list: { name: string; description: string }[]) =>
    `entries=(${
      list.map((e) => shellQuote(`${e.name.replaceAll(":", "\\:")}:${e.description}`)).join(" ")
    })`;
  return `#compdef replio
# Tab completion for replio in zsh, written by \`replio completions zsh\` from the command table
# \`replio --help\` shows. Save it as _replio in a folder of $fpath, or after compinit:
# source <(replio completions zsh)
_replio() {
  local at="" word skip=0 i
  local -a entries
  for ((i = 2; i < CURRENT; i++)); do
    word=\${words[i]}
    if ((skip)); then skip=0; continue; fi
    case "$at|$word" in
${walkCases(nodes, (to) => `at=${shellQuote(to)}`, "skip=1", "      ", " ;;")}
    esac
  done
  case "$at|\${words[CURRENT-1]}" in
${valueCases(nodes, (value) => zshValue(value), "    ")}
  esac
  if [[ $PREFIX == -* ]]; then
    case "$at" in
${
    nodes.map((node) =>
      `      ${shellQuote(at(node))}) ${
        entries(
          node.options.flatMap((o) =>
            o.flags.map((name) => ({ name, description: o.description }))
          ),
        )
      } ;;`
    ).join("\n")
  }
    esac
    _describe -t options option entries
  else
    case "$at" in
${
    nodes.map((node) => {
      const subs = node.subcommands.flatMap((sub) =>
        sub.names.map((name) => ({ name, description: sub.description }))
      );
      const action = subs.length
        ? entries(subs)
        : node.argument
        ? `${zshValue(node.argument)}`
        : "return 1";
      return `      ${shellQuote(at(node))}) ${action} ;;`;
    }).join("\n")
  }
    esac
    _describe -t commands command entries
  fi
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _replio "$@"
else
  compdef _replio replio
fi
`;
}

/** `replio completions fish`. */
export function renderFish(table: CompletionNode): string {
  const nodes = allNodes(table);
  const lines: string[] = [];
  for (const node of nodes) {
    const when = `-n ${fishQuote(`__replio_at ${shellQuote(at(node))}`)}`;
    for (const sub of node.subcommands) {
      for (const name of sub.names) {
        lines.push(`complete -c replio ${when} -a ${name} -d ${fishQuote(sub.description)}`);
      }
    }
    if (!node.subcommands.length && node.argument) {
      lines.push(`complete -c replio ${when} ${fishValue(node.argument)}`);
    }
    for (const option of node.options) {
      const spelled = option.flags.map((flag) =>
        flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`
      );
      const value = option.value ? ` ${fishValue(option.value)}` : "";
      lines.push(
        `complete -c replio ${when} ${spelled.join(" ")} -d ${
          fishQuote(option.description)
        }${value}`,
      );
    }
  }
  return `# Tab completion for replio in fish, written by \`replio completions fish\` from the command
# table \`replio --help\` shows. Save it as ~/.config/fish/completions/replio.fish
function __replio_at --description 'Whether the command line is at this replio command'
    set -l at ''
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch "$at|$word"
${walkCases(nodes, (to) => `set at ${fishQuote(to)}`, "set skip 1", "            ", "", "fish")}
        end
    end
    test "$at" = "$argv[1]"
end
complete -c replio -f
${lines.join("\n")}
`;
}

/** The path of `node` as the scripts spell it: `sessions list`, or empty for the root. */
function at(node: CompletionNode): string {
  return node.path.join(" ");
}

/**
 * The `case` arms of the walk: a subcommand's name moves `at` down, an option that takes a value
 * skips the next word.
 */
function walkCases(
  nodes: readonly CompletionNode[],
  moveTo: (to: string) => string,
  skip: string,
  indent: string,
  end: string,
  dialect: "sh" | "fish" = "sh",
): string {
  const arm = (patterns: string[], action: string) =>
    dialect === "fish"
      ? `${indent}case ${patterns.map(fishQuote).join(" ")}\n${indent}    ${action}`
      : `${indent}${patterns.map(shellQuote).join("|")}) ${action}${end}`;
  const arms: string[] = [];
  for (const node of nodes) {
    for (const sub of node.subcommands) {
      arms.push(arm(sub.names.map((name) => `${at(node)}|${name}`), moveTo(at(sub))));
    }
  }
  const valued = nodes.flatMap((node) =>
    node.options.filter((o) => o.value).flatMap((o) => o.flags.map((flag) => `${at(node)}|${flag}`))
  );
  if (valued.length) arms.push(arm(valued, skip));
  return arms.join("\n");
}

/** The `case` arms for the word after an option that takes a value. */
function valueCases(
  nodes: readonly CompletionNode[],
  complete: (value: ValueKind) => string,
  indent: string,
): string {
  // One arm per completion: most options that take a value offer nothing or folders.
  const byAction = new Map<string, string[]>();
  for (const node of nodes) {
    for (const option of node.options) {
      if (!option.value) continue;
      const action = complete(option.value);
      const patterns = byAction.get(action) ?? [];
      patterns.push(...option.flags.map((flag) => shellQuote(`${at(node)}|${flag}`)));
      byAction.set(action, patterns);
    }
  }
  return [...byAction].map(([action, patterns]) => `${indent}${patterns.join("|")}) ${action} ;;`)
    .join("\n");
}

function bashValue(value: ValueKind, end: string): string {
  switch (value.kind) {
    case "choices":
      return `mapfile -t COMPREPLY < <(compgen -W ${
        shellQuote(value.choices.join(" "))
      } -- "$cur"); ${end}`;
    case "dir":
      return `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur"); ${end}`;
    case "file":
      return `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur"); ${end}`;
    case "free":
      return `COMPREPLY=(); ${end}`;
  }
}

function zshValue(value: ValueKind): string {
  switch (value.kind) {
    case "choices":
      return `compadd -- ${value.choices.map(shellQuote).join(" ")}; return`;
    case "dir":
      return "_files -/; return";
    case "file":
      return "_files; return";
    case "free":
      return "return 1";
  }
}

function fishValue(value: ValueKind): string {
  switch (value.kind) {
    case "choices":
      return `-xa ${fishQuote(value.choices.join(" "))}`;
    case "dir":
      return "-xa '(__fish_complete_directories)'";
    case "file":
      return "-rF";
    case "free":
      return "-x";
  }
}

/** Long spellings before short ones: `--continue -c` reads better in a list. */
function longFirst(option: { flags: string[] }): string[] {
  return [...option.flags].sort((a, b) => b.length - a.length);
}

/** `text` in single quotes for fish, which escapes `\` and `'` inside them. */
function fishQuote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
