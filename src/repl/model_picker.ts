/**
 * `/model` without a name: the models the endpoint lists (`GET /models`), the current one
 * selected, to move through with the arrow keys; Enter switches, Esc keeps the current one.
 * @module
 */
import { type PickerTerminal, pickFromList } from "./list_picker.ts";

/** Shows the picker; resolves to the chosen model, or null when the person kept `current`. */
export async function pickModel(
  models: readonly string[],
  current: string | null,
  terminal: PickerTerminal,
): Promise<string | null> {
  const s = terminal.styles;
  const initial = current === null ? 0 : Math.max(0, models.indexOf(current));
  return await pickFromList({
    items: models,
    initial,
    header: s.bold("Choose a model") +
      s.dim(` (${models.length}) · ↑/↓ move · Enter switches · Esc keeps the current one`),
    row: (model, isSelected, width) => {
      const mark = model === current ? " (current)" : "";
      const text = `${isSelected ? "› " : "  "}${model}`.slice(
        0,
        Math.max(10, width - mark.length),
      );
      return isSelected ? s.cyan(text) + s.dim(mark) : text + s.dim(mark);
    },
  }, terminal);
}
