/**
 * `replio serve`: the local HTTP API (docs/serve.md). src/cli opens the workspace and hands it
 * to {@link startServer}.
 *
 * ```ts ignore
 * await using server = await startServer({ hostname: "127.0.0.1", port: 8787, version, workspace });
 * await server.shutdown(); // cancels running turns and waits until their sessions are saved
 * ```
 * @module
 */
export { MAX_BODY_BYTES } from "./_respond.ts";
export { isLoopbackHost } from "./is_loopback_host.ts";
export { MountServer, type MountServerOptions, startMountServer } from "./mount_server.ts";
export { ReplioServer, type ServeOptions, type ServeWorkspace, startServer } from "./server.ts";
export type { HttpMount } from "./serve_workspace.ts";
