import { EventEmitter } from 'node:events';

export type { CoreEvent, CoreTopic, EventOf } from '../../shared/events.js';
import type { CoreEvent } from '../../shared/events.js';

/** A typed, synchronous event bus. Listeners must not throw; a throwing listener is logged and skipped. */
export class EventBus {
  readonly #emitter = new EventEmitter({ captureRejections: false });

  constructor() {
    // Every SSE client is a listener; there is no leak to warn about.
    this.#emitter.setMaxListeners(0);
  }

  publish(event: CoreEvent): void {
    this.#emitter.emit('event', event);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: (event: CoreEvent) => void): () => void {
    const safe = (event: CoreEvent): void => {
      try {
        listener(event);
      } catch (error) {
        console.error(`event listener failed on ${event.topic}:`, error);
      }
    };
    this.#emitter.on('event', safe);
    return () => this.#emitter.off('event', safe);
  }
}
