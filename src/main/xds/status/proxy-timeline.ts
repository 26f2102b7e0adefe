import type { EventBus } from '../../events/event-bus.js';

export type { PostCreateStrategy, ProxyEvent, ProxyEventKind, TickResult } from '../../../shared/proxy-events.js';
import type { ProxyEvent } from '../../../shared/proxy-events.js';

/** The only clock of the timeline. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

const EVENTS_PER_PROXY = 1000;
/**
 * When a proxy's log is full, its oldest events go except the very first ones: its first
 * connection's, which the first-config breakdown reads (a skip tick every second would otherwise
 * push them out within minutes).
 */
const FIRST_EVENTS_KEPT = 100;

/**
 * Per-proxy event log, bounded (oldest events go first, except the first connection's, which the
 * first-config breakdown needs). Every callback of the xDS chain records here; the UI, the
 * inspection API and tests read from here, and each event is also published on the bus.
 */
export class ProxyTimeline {
  readonly #events = new Map<string, ProxyEvent[]>();

  constructor(private readonly bus?: EventBus) {}

  record(proxyId: string, event: ProxyEvent): void {
    let events = this.#events.get(proxyId);
    if (!events) {
      events = [];
      this.#events.set(proxyId, events);
    }
    events.push(event);
    if (events.length > EVENTS_PER_PROXY) events.splice(FIRST_EVENTS_KEPT, events.length - EVENTS_PER_PROXY);
    this.bus?.publish({ topic: 'proxy.event', proxyId, event });
  }

  events(proxyId: string): readonly ProxyEvent[] {
    return this.#events.get(proxyId) ?? [];
  }

  proxyIds(): string[] {
    return [...this.#events.keys()];
  }

  /** Drops a proxy's history, once its Dataplane is gone for good. */
  forget(proxyId: string): void {
    this.#events.delete(proxyId);
  }
}
