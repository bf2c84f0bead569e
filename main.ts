/**
 * replio's entry point: hands the arguments to the CLI and exits with its code.
 * @module
 */
import { main } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
