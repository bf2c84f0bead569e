/**
 * {@link runProcess} with the whole output kept: every byte a command prints goes to the
 * session's output store as it arrives, and the line between head and tail names the output
 * id and the exact lines left out, so the model can read them with `tool_output`. Without a
 * store (no session) it is plain `runProcess`.
 * @module
 */
import { omittedNote, OUTPUT_STORE_SERVICE, type OutputStore } from "../tools/output_store.ts";
import type { ToolContext } from "../tools/types.ts";
import { type ProcessResult, runProcess, type RunProcessOptions } from "./run_process.ts";

/** A process result, with the id of its kept output when lines were left out. */
export interface KeptProcessResult extends ProcessResult {
  outputId?: string;
}

/**
 * Runs the command like {@link runProcess}; its output is kept under an id when the result
 * leaves lines out, and dropped from disk when it does not.
 */
export async function runProcessKept(
  options: RunProcessOptions,
  ctx: Pick<ToolContext, "services">,
): Promise<KeptProcessResult> {
  const store = ctx.services[OUTPUT_STORE_SERVICE] as OutputStore | undefined;
  if (store === undefined || store.maxBytes <= 0) return await runProcess(options);
  const writer = store.create();
  const { onBytes } = options;
  let result: ProcessResult;
  try {
    result = await runProcess({
      ...options,
      onBytes: (chunk) => {
        writer.writeBytes(chunk);
        onBytes?.(chunk);
      },
      omittedNote: (omitted, first, total) =>
        omittedNote(writer, {
          lines: omitted,
          first,
          total: { lines: total, bytes: writer.bytes },
        }),
    });
  } catch (error) {
    store.discard(writer);
    throw error;
  }
  if (result.omittedLines > 0) {
    store.finish(writer);
    return { ...result, outputId: writer.id };
  }
  // No line left out, but long lines may have been cut: their text is kept.
  if (!result.cutLines) {
    store.discard(writer);
    return result;
  }
  store.finish(writer);
  const note = `(long lines were cut: the whole output is kept, read it with ` +
    `tool_output(id="${writer.id}", offset=1))`;
  return {
    ...result,
    output: result.output === "" ? note : `${result.output}\n${note}`,
    outputId: writer.id,
  };
}
