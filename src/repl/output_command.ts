/**
 * `/output [ID [LINE]]`: the full outputs this session kept when results were cut. In a
 * terminal one opens in the pager (output_pager.ts) at LINE; without one, a page of it is
 * printed from LINE with the command that prints the next.
 * @module
 */
import { sessionOutputStore } from "../session/mod.ts";
import type { ReplContext, SlashCommand } from "./context.ts";
import { pageOutput } from "./output_pager.ts";
import { splitFirst } from "./slash.ts";

/** Lines shown per page when the terminal's height is unknown. */
const PAGE_LINES = 40;

/** `/output [ID [LINE]]`. */
export const outputCommand: SlashCommand = {
  name: "output",
  usage: "/output [ID [LINE]]",
  summary: "List the kept full outputs, or open one in the pager at LINE (tool_output ids: o7)",
  complete: (repl) => storeOf(repl).list(),
  async run(repl, args) {
    const store = storeOf(repl);
    const [id, rest] = splitFirst(args);
    if (id === "") {
      const ids = store.list();
      repl.print(
        ids.length === 0
          ? "No outputs kept in this session: they are kept when a result is cut"
          : `Kept outputs: ${ids.join(", ")} (/output ID to read one)`,
        repl.styles.dim,
      );
      return;
    }
    const first = rest === "" ? 1 : Number(rest);
    if (!Number.isInteger(first) || first < 1) {
      repl.printError(`Cannot page output ${id} from "${rest}": give a line number >= 1`);
      return;
    }
    const pager = repl.pagerTerminal();
    let page;
    try {
      if (pager) return await pageOutput(store.pathOf(id), id, pager, first);
      page = await store.page(id, first, pageLines());
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      repl.printError(error.message);
      return;
    }
    const n = (x: number) => x.toLocaleString("en-US");
    for (const line of page.lines) repl.print(line);
    const last = first + page.lines.length - 1;
    repl.print(
      page.lines.length === 0
        ? `${id} has ${n(page.total)} lines; line ${n(first)} is past its end`
        : last < page.total
        ? `${id}: lines ${n(first)}–${n(last)} of ${n(page.total)} · /output ${id} ${last + 1} ` +
          "for more"
        : `${id}: lines ${n(first)}–${n(last)} of ${n(page.total)} (end)`,
      repl.styles.dim,
    );
  },
};

function storeOf(repl: ReplContext) {
  return sessionOutputStore(repl.worktree, repl.session.id, repl.config);
}

/** A screen of lines, less the prompt and the footer. */
function pageLines(): number {
  try {
    return Math.max(5, Deno.consoleSize().rows - 3);
  } catch {
    return PAGE_LINES;
  }
}
