/**
 * A sink that keeps every event and asks no one: headless answers come from the policy.
 * @module
 */
import type { ConfirmAnswer, ConfirmRequest, Sink, TurnEvent } from "./events.ts";

/** Records events in order; `confirm` declines and `ask` has no one to answer. */
export class CollectingSink implements Sink {
  /** Its events are read for results, never shown: no preview is made for them. */
  readonly showsPreviews: boolean = false;
  readonly events: TurnEvent[] = [];
  emit(event: TurnEvent): void {
    this.events.push(event);
  }
  confirm(_request: ConfirmRequest): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }
  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }
}
