/**
 * What a process's heap holds, asked through the DevTools protocol of a process started with
 * `--inspect`: a heap snapshot (which collects garbage first) summed by node type. Unlike the
 * resident size, this does not move with when the collector last ran or how large V8 has let
 * its young generation grow, so it shows data a process keeps, turn after turn.
 * @module
 */

/** A DevTools protocol connection to one inspected process. */
export class HeapInspector implements AsyncDisposable {
  readonly #socket: WebSocket;
  #next = 0;
  readonly #pending = new Map<number, (result: unknown) => void>();
  #chunks: string[] = [];

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (message) => {
      const data = JSON.parse(String(message.data));
      if (data.method === "HeapProfiler.addHeapSnapshotChunk") this.#chunks.push(data.params.chunk);
      else this.#pending.get(data.id)?.(data.result);
    };
  }

  /** Connects to the `ws://` address the process printed ("Debugger listening on …"). */
  static async connect(url: string): Promise<HeapInspector> {
    const socket = new WebSocket(url);
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`Cannot connect to the inspector at ${url}`));
    await promise;
    return new HeapInspector(socket);
  }

  /**
   * Bytes the heap holds after a full collection, compiled code left out: code grows while
   * functions warm up and is no data kept.
   */
  async retainedDataBytes(): Promise<number> {
    this.#chunks = [];
    await this.#call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const snapshot = JSON.parse(this.#chunks.join("")) as HeapSnapshot;
    this.#chunks = [];
    const fields = snapshot.snapshot.meta.node_fields;
    const typeNames = snapshot.snapshot.meta.node_types[0] as string[];
    const type = fields.indexOf("type");
    const size = fields.indexOf("self_size");
    let bytes = 0;
    for (let at = 0; at < snapshot.nodes.length; at += fields.length) {
      if (typeNames[snapshot.nodes[at + type]!] !== "code") bytes += snapshot.nodes[at + size]!;
    }
    return bytes;
  }

  #call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.#next;
    const { promise, resolve } = Promise.withResolvers<unknown>();
    this.#pending.set(id, (result) => {
      this.#pending.delete(id);
      resolve(result);
    });
    this.#socket.send(JSON.stringify({ id, method, params }));
    return promise;
  }

  /** Disconnects; a second call does nothing. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#socket.readyState === WebSocket.CLOSED) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#socket.onclose = () => resolve();
    this.#socket.close();
    await promise;
  }
}

/** The parts of V8's heap snapshot format read here. */
interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: unknown[] } };
  nodes: number[];
}
