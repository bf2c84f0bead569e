/**
 * Time from process start to the first model request: what a headless `replio run` costs before
 * the model sees anything. The reference in the same run is `refagent` (bench/peers/ref-agent.mjs,
 * a 150-line Node loop: the floor). A local server records when each request arrives and answers
 * at once with a final text, so the figure is start-up and the path to the first request only.
 *
 * Run: `deno run -A bench/first_request_bench.ts [RUNS]` (writes bench/results/first_request.md).
 * @module
 */
import { join } from "node:path";

const RUNS = Number(Deno.args[0] ?? 15);
const here = new URL(".", import.meta.url).pathname;
const MAIN = join(here, "..", "main.ts");
const REF = join(here, "peers", "ref-agent.mjs");

let firstRequestAt = 0;
const reply = [
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "done" } }] })}`,
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}`,
  "data: [DONE]",
  "",
  "",
].join("\n\n");
const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
  if (!firstRequestAt) firstRequestAt = performance.now();
  await request.body?.cancel();
  return new Response(reply, { headers: { "content-type": "text/event-stream" } });
});
const baseUrl = `http://127.0.0.1:${server.addr.port}/v1`;

// Both take the same headless command line (ref-agent.mjs has replio's).
const runArgs = [
  "run",
  "--base-url",
  baseUrl,
  "--model",
  "m",
  "--yes",
  "--output",
  "json",
  "BENCH",
];
const deno = [Deno.execPath(), "run", "--no-prompt", "-A"];
const agents: Record<string, string[]> = {
  // As `deno task start` runs it: modules behind a dynamic import load when first used.
  replio: [...deno, "--unstable-lazy-dynamic-imports", MAIN, ...runArgs],
  // Deno's default: every statically analysable dynamic import is loaded before main runs.
  replioEager: [...deno, MAIN, ...runArgs],
  refagent: ["node", REF, ...runArgs],
};

const work = await Deno.makeTempDir({ prefix: "replio-first-request-" });
const samples: Record<string, number[]> = Object.fromEntries(
  Object.keys(agents).map((name) => [name, []]),
);
try {
  for (let i = 0; i < RUNS + 2; i++) {
    for (const [name, [cmd, ...args]] of Object.entries(agents)) {
      firstRequestAt = 0;
      const start = performance.now();
      const { code, stderr } = await new Deno.Command(cmd!, {
        args,
        cwd: work,
        clearEnv: true,
        env: {
          HOME: Deno.env.get("HOME") ?? "",
          PATH: Deno.env.get("PATH") ?? "",
          XDG_CONFIG_HOME: join(work, ".xdg"),
          OPENAI_API_KEY: "sk-bench",
          DENO_NO_UPDATE_CHECK: "1",
          NO_COLOR: "1",
        },
        stdout: "null",
        stderr: "piped",
      }).output();
      if (code !== 0 || !firstRequestAt) {
        throw new Error(`${name} failed (exit ${code}): ${new TextDecoder().decode(stderr)}`);
      }
      // Two warm-up rounds fill the page cache and Deno's module cache.
      if (i >= 2) samples[name]!.push(firstRequestAt - start);
    }
  }
} finally {
  await server.shutdown();
  await Deno.remove(work, { recursive: true });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const [replio, eager, floor] = ["replio", "replioEager", "refagent"].map((name) =>
  median(samples[name]!)
) as [number, number, number];
const report = `# First model request

\`deno run -A bench/first_request_bench.ts ${RUNS}\`: process start → first request at a local
server that answers at once (median of ${RUNS}, runs interleaved; the reference is the 150-line
Node loop \`bench/peers/ref-agent.mjs\`, in the same run).

| | first request | × refagent |
| --- | --- | --- |
| refagent (floor) | ${floor.toFixed(0)} ms | 1.00 |
| replio \`run\`, as \`deno task start\` runs it (\`--unstable-lazy-dynamic-imports\`) | ${
  replio.toFixed(0)
} ms | ${(replio / floor).toFixed(2)} |
| replio \`run\`, Deno's default eager loading | ${eager.toFixed(0)} ms | ${
  (eager / floor).toFixed(2)
} |
`;
await Deno.mkdir(join(here, "results"), { recursive: true });
await Deno.writeTextFile(join(here, "results", "first_request.md"), report);
await Deno.stdout.write(new TextEncoder().encode(report));
