/**
 * The scripted mock model as its own process, for REPL tests under tmux and benchmarks:
 *
 * ```sh
 * deno run -A tests/support/mock_model_server.ts script.json [--repeat] [--port N]
 * ```
 *
 * `script.json` holds an array of {@link MockTurn}, or `{"turns": [...], "repeat": true,
 * "models": ["name"]}`. The first stdout line is `listening http://127.0.0.1:<port>` (usable as
 * `base_url` as is); `GET /mock/log` returns the recorded requests and violations, which are
 * also printed to stderr as they happen. SIGINT or SIGTERM stops it.
 * @module
 */
import { type MockModelOptions, type MockTurn, startMockModel } from "./mock_model.ts";

interface ScriptFile {
  turns: MockTurn[];
  repeat?: boolean;
  models?: string[];
}

const USAGE = "Usage: mock_model_server.ts SCRIPT.json [--repeat] [--port N]";
const encoder = new TextEncoder();

/** Reads the script file in either of its two shapes. */
async function readScript(path: string): Promise<ScriptFile> {
  const parsed = JSON.parse(await Deno.readTextFile(path)) as MockTurn[] | ScriptFile;
  if (Array.isArray(parsed)) return { turns: parsed };
  if (Array.isArray(parsed.turns)) return parsed;
  throw new TypeError(
    `Cannot use script "${path}": expected an array of turns or {"turns": [...]}`,
  );
}

async function main(args: string[]): Promise<void> {
  const path = args.find((arg) => !arg.startsWith("--") && !/^\d+$/.test(arg));
  const portAt = args.indexOf("--port");
  if (!path || (portAt >= 0 && !/^\d+$/.test(args[portAt + 1] ?? ""))) {
    await Deno.stderr.write(encoder.encode(`${USAGE}\n`));
    Deno.exit(2);
  }
  const script = await readScript(path);
  const options: MockModelOptions = {
    repeat: script.repeat === true || args.includes("--repeat"),
    ...(script.models ? { models: script.models } : {}),
    ...(portAt >= 0 ? { port: Number(args[portAt + 1]) } : {}),
    onViolation: (violation) => {
      Deno.stderr.writeSync(encoder.encode(`mock violation: ${violation}\n`));
    },
  };
  const mock = startMockModel(script.turns, options);
  await Deno.stdout.write(
    encoder.encode(`listening ${mock.baseUrl.replace(/\/v1$/, "")}\n`),
  );
  const stop = Promise.withResolvers<void>();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stop.resolve());
  }
  await stop.promise;
  await mock.close();
  Deno.exit(0);
}

if (import.meta.main) await main(Deno.args);
