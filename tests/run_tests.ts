/**
 * The test task: runs `deno test` over the repository and ends with the plain line
 * `N passed, M failed, K skipped` that CI reads (DESIGN.md §1). Extra arguments are passed on
 * (e.g. a file or `--filter`).
 *
 * A watchdog bounds the whole run (`REPLIO_TEST_DEADLINE` seconds, default 900): a test that
 * hangs ends the run as a failure naming the test, instead of holding CI until its own limit
 * cuts it off with no summary at all. The whole suite took 351-458 s with four busy loops on two
 * cores (scripts/ci_under_load.sh, 2026-12), so the default leaves a busy machine twice that.
 * @module
 */
/** Markdown under docs/ shows fragments, not programs: doc tests cover the code folders. */
const extra = Deno.args.length ? Deno.args : ["src", "plugins", "tests", "main.ts"];
const deadlineSeconds = Number(Deno.env.get("REPLIO_TEST_DEADLINE") ?? 900);
const testArgs = ["test", "--no-prompt", "-A", "--doc", "--parallel", ...extra];
// In a process group of its own (setsid), so the watchdog ends the tests' children too: a
// leftover child holding CI's output pipe would keep the run open after this script exits.
const ownGroup = Deno.build.os === "linux";
const child = new Deno.Command(ownGroup ? "setsid" : Deno.execPath(), {
  args: ownGroup ? [Deno.execPath(), ...testArgs] : testArgs,
  env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
  stdout: "piped",
  stderr: "piped",
}).spawn();

const counted = { passed: 0, failed: 0 };
/** The tests deno reported as slow, by name; the last ones named are the likely hang. */
const slow = new Set<string>();

/** Copies one of deno's streams to ours, counting results line by line; returns its tail. */
async function relay(stream: ReadableStream<Uint8Array>, out: typeof Deno.stdout) {
  const decoder = new TextDecoder();
  let partial = "";
  let tail = "";
  for await (const chunk of stream) {
    await out.write(chunk);
    const text = decoder.decode(chunk, { stream: true });
    tail = (tail + text).slice(-4000);
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (/ \.\.\. ok\b/.test(line)) counted.passed++;
      else if (/ \.\.\. FAILED\b/.test(line)) counted.failed++;
      const running = /^'(.*)' has been running for over/.exec(line);
      if (running) slow.add(running[1]!);
    }
  }
  return tail;
}

const relayed = Promise.all([relay(child.stdout, Deno.stdout), relay(child.stderr, Deno.stderr)]);
let timer: ReturnType<typeof setTimeout> | undefined;
const deadline = new Promise<"deadline">((resolve) => {
  timer = setTimeout(() => resolve("deadline"), deadlineSeconds * 1000);
});
const ended = await Promise.race([child.status.then(() => "ended" as const), deadline]);
clearTimeout(timer);

const print = (text: string) => Deno.stdout.write(new TextEncoder().encode(text));
if (ended === "deadline") {
  try {
    Deno.kill(ownGroup ? -child.pid : child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  const names = [...slow].map((name) => `  ${name}`).join("\n") || "  (deno named none)";
  await print(
    `\nThe test run passed its ${deadlineSeconds} s deadline (REPLIO_TEST_DEADLINE) and was ` +
      `stopped. Tests deno reported as slow (a hung one is among them):\n${names}\n` +
      `\n${counted.passed} passed, ${counted.failed + 1} failed, 0 skipped\n`,
  );
  Deno.exit(1);
}

const [tail] = await relayed;
const { code } = await child.status;
const summary = tail.match(
  /(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed(?: \(\d+ steps?\))?(?: \| (\d+) ignored)?/,
);
const passed = summary ? Number(summary[1]) : 0;
const failed = summary ? Number(summary[2]) : code === 0 ? 0 : 1;
const skipped = summary?.[3] ? Number(summary[3]) : 0;
await print(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
Deno.exit(code);
