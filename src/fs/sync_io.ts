/**
 * Where synchronous file I/O ends. A leaf module: every area may import it (plugins through the
 * plugin API).
 *
 * An async file call is a hand-off to a worker thread and back: about 70 µs on a quiet machine,
 * 1–2 ms on a busy one (docs/decisions.md, "Metadata calls on the tool path are synchronous").
 * Reading or writing a file up to this size in the page cache takes well under that, so the tools
 * do it synchronously; larger files go asynchronously, so the event loop (a cancel, a spinner) is
 * not held while they are copied.
 * @module
 */

/** Bytes (or characters, for a text) up to which a file is read or written synchronously. */
export const SYNC_IO_MAX_BYTES = 256 * 1024;
