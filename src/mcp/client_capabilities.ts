/**
 * What replio's MCP client declares in `initialize`, exactly what it implements, and its
 * answers to the requests a server sends: `elicitation/create` (a form for the person),
 * `roots/list` (the worktree) and `sampling/createMessage` (replio's model, without tools).
 * @module
 */
import { basename } from "../fs/path.ts";
import type { HeadlessAnswer } from "../tools/mod.ts";
import type { Client } from "./_sdk.ts";
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  type ElicitRequestFormParams,
  ElicitRequestSchema,
  type ElicitResult,
  ListRootsRequestSchema,
} from "./_sdk_requests.ts";
import type { ActiveCalls } from "./active_calls.ts";
import { fillForm } from "./elicitation.ts";
import { sampleForServer } from "./sampling.ts";

/**
 * Forms only (no URL mode: replio opens no browser for a server); one root, the worktree, which
 * never changes while replio runs; sampling without `tools` or `context`.
 */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: {} },
  roots: { listChanged: false },
  sampling: {},
};

/** What the answers need to know of the connection. */
export interface ServerRequestOptions {
  /** The server's name in `mcp_servers`. */
  server: string;
  worktree: string;
  /** How this run answers ask-gated actions without a person; undefined in the REPL. */
  headless: HeadlessAnswer | undefined;
  /** The connection's running calls: a request is answered through the latest one's context. */
  calls: ActiveCalls;
}

/** Installs replio's answers to a server's requests on a client, before it connects. */
export function answerServerRequests(client: Client, options: ServerRequestOptions): void {
  const { server, calls } = options;
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: fileUri(options.worktree), name: basename(options.worktree) || "/" }],
  }));
  client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
    const scope = calls.latest();
    // The SDK has checked the mode: replio declares forms only.
    const params = request.params as ElicitRequestFormParams;
    if (!scope) {
      // Outside a call there is no turn, hence no person to route it to.
      return { action: "decline" };
    }
    const outcome = await fillForm(params, {
      server,
      ask: (question) => scope.askPerson(question),
      signal: scope.ctx.signal,
      hasPerson: options.headless === undefined,
    });
    if (outcome.note) scope.notes.push(outcome.note);
    return outcome.result;
  });
  client.setRequestHandler(
    CreateMessageRequestSchema,
    async (request, extra) =>
      await sampleForServer(request.params, calls.latest(), {
        server,
        headless: options.headless,
        signal: extra.signal,
      }),
  );
}

/**
 * An absolute path as a `file://` URI, each segment percent-encoded.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(fileUri("/home/me/my project"), "file:///home/me/my%20project");
 * ```
 */
export function fileUri(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}
