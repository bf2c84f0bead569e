/**
 * A child process for the session tests: `key WORKTREE ID` writes one turn whose texts contain
 * the value of `$FAKE_KEY`; `loop WORKTREE ID` appends until it is killed, printing `ready`
 * once 13 turns are on disk.
 * @module
 */
import { Config } from "../../config/mod.ts";
import { openSession } from "../mod.ts";

const [mode, worktree = "", id] = Deno.args;
const config = Config.defaults().with({ api_key_env: "FAKE_KEY" });
const key = Deno.env.get("FAKE_KEY") ?? "";
const session = await openSession(worktree, { config, id, model: `model-${key}` });

if (mode === "key") {
  session.beginTurn(`use ${key} please`);
  session.appendMessage({ role: "user", content: `use ${key} please` });
  session.appendMessage({
    role: "assistant",
    content: null,
    tool_calls: [{
      id: "c1",
      type: "function",
      function: {
        name: "run_command",
        arguments: JSON.stringify({ command: `curl -H "Bearer ${key}"` }),
      },
    }],
  });
  session.appendMessage({
    role: "tool",
    tool_call_id: "c1",
    name: "run_command",
    content: `echo ${key}\n${key}`,
  });
  session.appendError("http_401", `Bad key ${key}`);
  session.endTurn("ok", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
  session.close();
} else if (mode === "loop") {
  const output = new TextEncoder().encode("ready\n");
  for (let turn = 1;; turn++) {
    session.beginTurn(`turn ${turn}`);
    session.appendMessage({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: `c${turn}`,
        type: "function",
        function: { name: "file_read", arguments: "{}" },
      }],
    });
    // Long lines make a kill in the middle of a write likely.
    session.appendMessage({
      role: "tool",
      tool_call_id: `c${turn}`,
      name: "file_read",
      content: "x".repeat(50_000 + turn),
    });
    session.endTurn("ok", { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    if (turn === 13) await Deno.stdout.write(output);
  }
}
