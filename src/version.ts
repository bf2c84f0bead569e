/** replio's version, printed by `--version` and sent as the session header's version. */
export const VERSION = "0.1.0";
