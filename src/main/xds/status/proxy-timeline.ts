import type { EventBus } from '../../events/event-bus.js';

export type PostCreateStrategy = 'sleep' | 'invalidate' | 'none';
export type TickResult = 'skip' | 'generated' | 'changed' | 'dataplane-not-found' | 'error';

/**
 * What happened to one proxy, in order. Times are epoch milliseconds with sub-millisecond
 * precision (`performance.timeOrigin + performance.now()`), so events from different callbacks
 * can be ordered and subtracted.
 */
export type ProxyEvent =
  | { kind: 'stream-opened'; at: number; streamId: number }
  | {
      kind: 'registered';
      at: number;
      /** `metadata`: the proxy brought its Dataplane (universal); `api`: it existed already. */
      origin: 'metadata' | 'api';
      created: boolean;
      version: number;
    }
  | { kind: 'post-create-wait'; at: number; strategy: PostCreateStrategy; startedAt: number; waitedMs: number; cause: string }
  | {
      kind: 'tick';
      at: number;
      result: TickResult;
      durationMs: number;
      /** Why a tick missed or failed (`dataplane not found`, a generator error). */
      detail?: string;
      /** On `changed`: the snapshot version set per type URL, so ACKs can be matched to it. */
      versions?: Record<string, string>;
    }
  | { kind: 'response'; at: number; typeUrl: string; version: string; nonce: string; resources: number }
  | { kind: 'ack'; at: number; typeUrl: string; version: string; nonce: string }
  | { kind: 'nack'; at: number; typeUrl: string; version: string; nonce: string; error: string }
  | { kind: 'response-dropped'; at: number; typeUrl: string; version: string; error: string }
  | { kind: 'stream-closed'; at: number; streamId: number }
  | { kind: 'deregistered'; at: number };

export type ProxyEventKind = ProxyEvent['kind'];

/** The only clock of the timeline. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

const EVENTS_PER_PROXY = 1000;

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
    if (events.length > EVENTS_PER_PROXY) events.splice(0, events.length - EVENTS_PER_PROXY);
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
