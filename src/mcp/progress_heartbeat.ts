/**
 * The progress a running `tools/call` of `replio mcp` reports: a heartbeat every
 * `mcp_progress_interval` seconds, and the tool's own progress at once, so a client that resets
 * its request timeout on progress waits as long as the call takes.
 * @module
 */

/** Options of {@link startHeartbeat}. */
export interface HeartbeatOptions {
  token: string | number | undefined;
  intervalMs: number;
  tool: string;
  send(notification: {
    method: "notifications/progress";
    params: { progressToken: string | number; progress: number; message: string };
  }): Promise<void>;
}

/** A running call's progress reporter: {@link startHeartbeat} made it. */
export interface Heartbeat {
  /** Sends the tool's own progress message at once (an MCP task's status, a server's report). */
  report(message: string): void;
  stop(): void;
}

/**
 * Sends `notifications/progress` every `intervalMs` while a call runs, and whenever the tool
 * reports progress, when the client gave a progress token (else null): a client that resets its
 * timeout on progress then waits as long as the call takes.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat | null {
  const { token } = options;
  if (token === undefined) return null;
  const startedAt = Date.now();
  let beats = 0;
  let latest = "running";
  const send = () => {
    beats++;
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    options.send({
      method: "notifications/progress",
      // No total: the tool's length is unknown, so progress counts reports.
      params: {
        progressToken: token,
        progress: beats,
        message: `${options.tool}: ${latest}, ${seconds} s`,
      },
      // The client is gone: its calls are being cancelled, so stop reporting to it.
    }).catch(() => clearInterval(timer));
  };
  const timer = setInterval(send, options.intervalMs);
  return {
    report(message) {
      latest = message;
      send();
    },
    stop: () => clearInterval(timer),
  };
}
