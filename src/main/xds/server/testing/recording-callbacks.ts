import type {
  Callbacks,
  ResponseDroppedEvent,
  StreamClosedEvent,
  StreamOpenEvent,
  StreamRequestEvent,
  StreamResponseEvent,
} from '../callbacks.js';

export type RecordedEvent =
  | ({ hook: 'open' } & StreamOpenEvent)
  | ({ hook: 'request' } & StreamRequestEvent)
  | ({ hook: 'response' } & StreamResponseEvent)
  | ({ hook: 'dropped' } & ResponseDroppedEvent)
  | ({ hook: 'closed' } & StreamClosedEvent);

/** Callbacks that remember every event, and let a test wait for one (by content, never by time). */
export class RecordingCallbacks implements Callbacks {
  readonly events: RecordedEvent[] = [];
  readonly #waiters: Array<{ matches: (event: RecordedEvent) => boolean; resolve: (event: RecordedEvent) => void }> = [];

  onStreamOpen(event: StreamOpenEvent): void {
    this.#record({ hook: 'open', ...event });
  }

  onStreamRequest(event: StreamRequestEvent): void {
    this.#record({ hook: 'request', ...event });
  }

  onStreamResponse(event: StreamResponseEvent): void {
    this.#record({ hook: 'response', ...event });
  }

  onResponseDropped(event: ResponseDroppedEvent): void {
    this.#record({ hook: 'dropped', ...event });
  }

  onStreamClosed(event: StreamClosedEvent): void {
    this.#record({ hook: 'closed', ...event });
  }

  of<H extends RecordedEvent['hook']>(hook: H): Array<Extract<RecordedEvent, { hook: H }>> {
    return this.events.filter((event): event is Extract<RecordedEvent, { hook: H }> => event.hook === hook);
  }

  /** The first recorded event of this hook that matches, now or when it happens. */
  waitFor<H extends RecordedEvent['hook']>(
    hook: H,
    matches: (event: Extract<RecordedEvent, { hook: H }>) => boolean = () => true,
  ): Promise<Extract<RecordedEvent, { hook: H }>> {
    const test = (event: RecordedEvent) => event.hook === hook && matches(event as Extract<RecordedEvent, { hook: H }>);
    const found = this.events.find(test);
    if (found) return Promise.resolve(found as Extract<RecordedEvent, { hook: H }>);
    return new Promise((resolve) => this.#waiters.push({ matches: test, resolve: resolve as (event: RecordedEvent) => void }));
  }

  #record(event: RecordedEvent): void {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) {
      if (!waiter.matches(event)) continue;
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  }
}
