/**
 * A sink that keeps every event and asks no one: headless answers come from the policy.
 * @module
 */
import type { ConfirmAnswer, Sink, TurnEvent } from "./events.ts";

/** Records events in order; `confirm` declines and `ask` has no one to answer. */
export class CollectingSink implements Sink {
  readonly events: TurnEvent[] = [];
  constructor(private readonly forward?: (event: TurnEvent) => void) {}
  emit(event: TurnEvent): void {
    this.events.push(event);
    this.forward?.(event);
  }
  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }
  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }
}
