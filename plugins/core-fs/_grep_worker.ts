/**
 * A search worker for grep's built-in engine: it scans the batches of files it is sent and
 * answers with their matches. Started by `_grep_builtin.ts` for large trees.
 * @module
 */
/// <reference lib="deno.worker" />
import type { WorkerReply, WorkerRequest } from "./_grep_builtin.ts";
import { createScanTools, type ScanTools, searchFile } from "./_grep_scan.ts";

let tools: ScanTools | null = null;

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const message = event.data;
  if (message.type === "start") {
    // The parent stops a worker by terminating it, so chunks need no pause here.
    tools = createScanTools(message.spec, () => Promise.resolve());
    return;
  }
  const found = [];
  for (const path of message.paths) {
    const matches = await searchFile(path, tools!);
    if (matches) found.push(matches);
  }
  self.postMessage({ found } satisfies WorkerReply);
};
