import { EventEmitter } from 'node:events';
import type { ResourceKey } from '../../shared/resources.js';
import type { ProxyEvent } from '../xds/status/proxy-timeline.js';

/** Everything the core announces to its views (UI, SSE, IPC). Tagged by `topic`. */
export type CoreEvent =
  | { topic: 'resource.changed'; change: 'created' | 'updated' | 'deleted'; key: ResourceKey; version: number }
  | { topic: 'settings.changed'; changed: Record<string, unknown> }
  | { topic: 'proxy.event'; proxyId: string; event: ProxyEvent };

export type CoreTopic = CoreEvent['topic'];
export type EventOf<T extends CoreTopic> = Extract<CoreEvent, { topic: T }>;

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
