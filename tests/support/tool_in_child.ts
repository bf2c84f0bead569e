/**
 * `replio tool NAME ARGS --path DIR` in a child process with a chosen environment: what a tool
 * does when PATH, the permissions or REPLIO_* variables differ from the test's own.
 * @module
 */

/** Runs the tool; returns its exit code and stdout (stderr is dropped). */
export async function toolInChild(
  tool: string,
  args: Record<string, unknown>,
  path: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string }> {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", main, "tool", tool, JSON.stringify(args), "--path", path],
    env: { NO_COLOR: "1", ...env },
    stderr: "null",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}
