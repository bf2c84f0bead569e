import assert from "node:assert/strict";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { loadSession, renderTranscript } from "./mod.ts";

const TS = "2026-11-30T14:25:01.000Z";

function line(record: Record<string, unknown>): string {
  return JSON.stringify({ ...record, ts: TS }) + "\n";
}

Deno.test("renderTranscript shows turns, calls, decisions and shortened results", async () => {
  const result = ["# a.txt - 20 lines", ...Array.from({ length: 19 }, (_, i) => `l${i}`)];
  await using wt = await tempWorktree({
    ".replio/sessions/s1.jsonl": [
      line({ type: "session", id: "s1", version: 1, worktree: "/w", created: TS, model: "m" }),
      line({ type: "turn_start", turn: 1, prompt: "read a.txt" }),
      line({ type: "message", message: { role: "user", content: "read a.txt\nplease" } }),
      line({
        type: "message",
        message: {
          role: "assistant",
          content: "Reading.",
          reasoning: "one\ntwo\nthree\nfour",
          tool_calls: [{
            id: "c1",
            type: "function",
            function: { name: "file_read", arguments: '{"path":"a.txt"}' },
          }],
        },
      }),
      line({
        type: "permission",
        tool: "file_read",
        permission: "read",
        action: "allow",
        decision: "granted",
        reason: "tool_permission.read",
        path: "a.txt",
      }),
      line({
        type: "message",
        message: {
          role: "tool",
          tool_call_id: "c1",
          name: "file_read",
          content: result.join("\n"),
        },
      }),
      line({ type: "analysis", tool_call_id: "c1", text: "Twenty short lines." }),
      line({ type: "error", code: "rate_limit", message: "Too many requests" }),
      line({
        type: "subagent",
        session: "sub_explore_abc123",
        agent_type: "explore",
        task: "look",
      }),
      line({ type: "compaction", summary: "Read a.txt.", upto: 2 }),
      line({ type: "message", message: { role: "assistant", content: "Done." } }),
      line({
        type: "turn_end",
        status: "ok",
        usage: { prompt_tokens: 1000, completion_tokens: 234, total_tokens: 1234 },
      }),
      '{"type":"turn_st',
    ].join(""),
  });
  const text = renderTranscript(await loadSession(wt.path, "s1"));
  assert.equal(
    text,
    `Session s1
  created 2026-11-30 14:25:01 UTC · model m · 1 turn · worktree /w
  warning: Skipped line 13: it was cut short (the process stopped while writing it)

── Turn 1 · 2026-11-30 14:25:01 UTC ──
User:
  read a.txt
  please
Thinking:
  one
  two
  three
  … 1 more line
Assistant: Reading.
Call file_read {"path":"a.txt"} [c1]
Permission file_read: allow, granted (tool_permission.read) a.txt
Result file_read [c1]:
  # a.txt - 20 lines
  l0
  l1
  l2
  l3
  l4
  l5
  l6
  … 12 more lines
Analysis [c1]: Twenty short lines.
Error rate_limit: Too many requests
Sub-agent sub_explore_abc123 (explore): look
Compaction: messages up to #3 replaced by a summary: Read a.txt.
Assistant: Done.
── Turn ended: ok · 1,234 tokens ──
`,
  );
});
