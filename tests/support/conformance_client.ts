/**
 * replio as the client of the MCP conformance suite's client scenarios: the suite runs this with
 * its server's URL last and the scenario in MCP_CONFORMANCE_SCENARIO. It configures that URL as
 * an `mcp_servers` entry of a fresh worktree and calls the scenario's tool headless through
 * `replio tool --yes`, as a model's call would go: `deno run -A conformance_client.ts URL`.
 * @module
 */
import { join } from "node:path";
import { runReplio } from "./replio_process.ts";

/** The tool call each client scenario expects, by scenario; others only connect and list. */
const CALLS: Record<string, { tool: string; arguments: Record<string, unknown> }> = {
  "tools_call": { tool: "add_numbers", arguments: { a: 2, b: 3 } },
  "elicitation-sep1034-client-defaults": {
    tool: "test_client_elicitation_defaults",
    arguments: {},
  },
  "sse-retry": { tool: "test_reconnection", arguments: {} },
};

const url = Deno.args.at(-1);
const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
if (!url) {
  throw new TypeError("Cannot run: no server URL: the suite passes it as the last argument");
}
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_conformance_client_" }));
try {
  await Deno.mkdir(join(dir, ".xdg", "replio"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, ".xdg", "replio", "config.yaml"),
    JSON.stringify({ mcp_servers: { conformance: { url } } }),
  );
  const call = CALLS[scenario];
  const args = call
    ? ["tool", `mcp__conformance__${call.tool}`, JSON.stringify(call.arguments), "--yes"]
    : ["tools", "--json"];
  const out = await runReplio(args, { cwd: dir });
  await Deno.stdout.write(new TextEncoder().encode(out.stdout));
  await Deno.stderr.write(new TextEncoder().encode(out.stderr));
  Deno.exitCode = out.code;
} finally {
  await Deno.remove(dir, { recursive: true });
}
