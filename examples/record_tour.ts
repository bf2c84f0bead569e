/**
 * Re-records examples/sessions/tour.jsonl: a real `replio run` session over a copy of
 * examples/tour/, driven by the scripted mock model of the tests (read, grep, glob, list, an
 * edit, a shell command the headless run is not allowed to run, and one parked for approval,
 * approved and resumed). `deno task demo` replays it.
 *
 * Run: `deno run -A examples/record_tour.ts` after changing the tour or the script below.
 * @module
 */
import { join } from "node:path";
import { startMockModel } from "../tests/support/mock_model.ts";

const here = new URL(".", import.meta.url).pathname;
const MAIN = join(here, "..", "main.ts");
const SESSION = "tour";

const work = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_tour_" }));
await new Deno.Command("cp", { args: ["-a", `${join(here, "tour")}/.`, work] }).output();
await using mock = startMockModel([
  {
    thinking: "Start with the README, then find what is left to do.",
    toolCalls: [{ name: "file_read", arguments: { path: "README.md" } }],
  },
  { toolCalls: [{ name: "grep", arguments: { pattern: "TODO" } }] },
  // One match: the order of several would follow the files' times, which a checkout sets.
  { toolCalls: [{ name: "glob", arguments: { pattern: "**/*.md" } }] },
  { toolCalls: [{ name: "list_dir", arguments: { path: "src" } }] },
  {
    text: "This is a tiny TypeScript project: `src/main.ts` prints `greet()` from " +
      "`src/greet.ts`, and one TODO asks for greeting people by name.",
  },
  {
    toolCalls: [{
      name: "file_edit",
      arguments: {
        path: "src/greet.ts",
        old: 'export function greet(): string {\n  return "Hello, world";',
        new: 'export function greet(name = "world"): string {\n  return `Hello, ${name}`;',
      },
    }],
  },
  { toolCalls: [{ name: "run_command", arguments: { command: "deno run src/main.ts" } }] },
  {
    text: "`greet()` now takes a name (default `world`). I could not run the program: shell " +
      "commands need your approval, and this run had none.",
  },
  { toolCalls: [{ name: "run_command", arguments: { command: "wc -l src/greet.ts" } }] },
  { text: "`src/greet.ts` has 4 lines." },
]);
const replio = async (args: string[], expected = 0) => {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "-A", MAIN, ...args],
    cwd: work,
    env: { NO_COLOR: "1", XDG_CONFIG_HOME: join(work, ".xdg") },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== expected) {
    throw new Error(`replio ${args[0]} exited ${code}: ${new TextDecoder().decode(stderr)}`);
  }
};
const model = ["--base-url", mock.baseUrl, "--model", "tour-model"];
await replio(["run", ...model, "--session", SESSION, "Show me around this project."]);
await replio([
  "run",
  ...model,
  "--session",
  SESSION,
  "Make greet take a name, then run the program.",
]);
// A parked approval: the run stops at the command (exit 4), a person approves, the turn resumes.
await replio(
  ["run", ...model, "--session", SESSION, "--park", "Count the lines of src/greet.ts."],
  4,
);
await replio(["approve", SESSION]);
await replio(["run", ...model, "--resume", SESSION]);
await Deno.copyFile(
  join(work, ".replio", "sessions", `${SESSION}.jsonl`),
  join(here, "sessions", `${SESSION}.jsonl`),
);
await Deno.remove(work, { recursive: true });
await Deno.stdout.write(new TextEncoder().encode("wrote examples/sessions/tour.jsonl\n"));
