/**
 * The `--output stream-json` renderer: one JSON event per line (DESIGN.md §4).
 * @module
 */
import type { ConfirmAnswer, Sink, TurnEvent } from "./events.ts";
import type { TextWriter } from "./writer.ts";

/** Writes each event as one line of JSON; display-only fields are left out. */
export class StreamJsonSink implements Sink {
  /** The stream-json shape leaves activity out. */
  readonly showsPreviews = false;
  constructor(private readonly out: TextWriter) {}

  emit(event: TurnEvent): void {
    this.out.write(JSON.stringify(toWire(event)) + "\n");
  }

  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }

  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }
}

/** The documented stream-json shape of an event: renderer hints (activity, is_note) dropped. */
export function toWire(event: TurnEvent): Record<string, unknown> {
  switch (event.type) {
    case "tool_call":
      return {
        type: event.type,
        id: event.id,
        name: event.name,
        arguments: event.arguments,
        isolation: event.isolation,
      };
    case "tool_result":
      return {
        type: event.type,
        id: event.id,
        name: event.name,
        output: event.output,
        is_error: event.is_error,
        isolation: event.isolation,
      };
    default:
      return event;
  }
}
