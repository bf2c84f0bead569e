/**
 * npm packages read `process.env` freely (yaml checks `LOG_TOKENS` on every token). Under Deno
 * without `--allow-env` each such read throws NotCapable, so parsing a config file would fail.
 * The guard makes an ungranted variable read as unset, as it would be for a program that was
 * never told about it; granted variables read through unchanged.
 * @module
 */

/**
 * Replaces `process.env` with a view that reads ungranted variables as unset. Does nothing when
 * every variable is granted, without loading Node's process shim (tens of ms). Asking Deno
 * never prompts.
 */
export async function guardNodeEnv(): Promise<void> {
  if (Deno.permissions.querySync({ name: "env" }).state === "granted") return;
  const { default: process } = await import("node:process");
  const real = process.env;
  const granted = (key: string | symbol) =>
    typeof key !== "string" ||
    Deno.permissions.querySync({ name: "env", variable: key }).state === "granted";
  // The target is a plain object: a Proxy over the real env would ask it for descriptors when
  // checking invariants, which is the very read that throws.
  process.env = new Proxy({}, {
    get: (_target, key) => granted(key) ? Reflect.get(real, key) : undefined,
    has: (_target, key) => granted(key) && Reflect.has(real, key),
    set: (_target, key, value) => Reflect.set(real, key, value),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real, key),
    ownKeys: () => [],
    getOwnPropertyDescriptor: (_target, key) =>
      granted(key) ? Reflect.getOwnPropertyDescriptor(real, key) : undefined,
  }) as typeof process.env;
}
