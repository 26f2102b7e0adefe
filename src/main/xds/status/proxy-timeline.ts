import type { EventBus } from '../../events/event-bus.js';
import type { StoredConnection } from '../../store/proxy-records.js';
import { firstConfigBreakdown, type FirstConfigBreakdown } from './first-config.js';

export type { PostCreateStrategy, ProxyEvent, ProxyEventBody, ProxyEventKind, TickResult } from '../../../shared/proxy-events.js';
import type { ProxyEvent, ProxyEventBody } from '../../../shared/proxy-events.js';

/** The only clock of the timeline. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

const EVENTS_PER_PROXY = 1000;
/**
 * When a proxy's log is full, its oldest events go except the first ones of its current
 * connection, which its first-config breakdown reads (a skip tick every second would otherwise
 * push them out within minutes).
 */
const FIRST_EVENTS_KEPT = 100;
/** Breakdowns of a proxy's earlier connections kept, newest first. */
export const EARLIER_CONNECTIONS_KEPT = 10;

interface ProxyLog {
  events: ProxyEvent[];
  /** Index in `events` of the current connection's `stream-opened`; 0 before any. */
  connectionStart: number;
  /** First-config breakdowns of the connections before the current one, newest first. */
  earlier: FirstConfigBreakdown[];
}

export type TimelineListener = (proxyId: string, event: ProxyEvent) => void;

/**
 * Per-proxy event log, bounded (oldest events go first, except the current connection's first
 * ones), with the first-config breakdown of each earlier connection, taken when the next one opens.
 * Every callback of the xDS chain records here; the UI, the inspection API and tests read from
 * here, and each event is also published on the bus and to the listeners (the status tracker).
 */
export class ProxyTimeline {
  readonly #logs = new Map<string, ProxyLog>();
  readonly #listeners = new Set<TimelineListener>();
  #seq = 0;

  constructor(private readonly bus?: EventBus) {}

  record(proxyId: string, body: ProxyEventBody): void {
    const event: ProxyEvent = { ...body, seq: ++this.#seq };
    let log = this.#logs.get(proxyId);
    if (!log) this.#logs.set(proxyId, (log = { events: [], connectionStart: 0, earlier: [] }));
    if (event.kind === 'stream-opened') {
      const previous = firstConfigBreakdown(log.events.slice(log.connectionStart));
      if (previous) log.earlier = [previous, ...log.earlier].slice(0, EARLIER_CONNECTIONS_KEPT);
      log.connectionStart = log.events.length;
    }
    log.events.push(event);
    trim(log);
    for (const listener of this.#listeners) listener(proxyId, event);
    this.bus?.publish({ topic: 'proxy.event', proxyId, event });
  }

  events(proxyId: string): readonly ProxyEvent[] {
    return this.#logs.get(proxyId)?.events ?? [];
  }

  /**
   * The latest connection's breakdown (undefined before any), and the earlier ones, newest first. A
   * proxy that has not connected since a restart has as its latest the last one restored.
   */
  firstConfigs(proxyId: string): { latest: FirstConfigBreakdown | undefined; earlier: readonly FirstConfigBreakdown[] } {
    const log = this.#logs.get(proxyId);
    if (!log) return { latest: undefined, earlier: [] };
    const latest = firstConfigBreakdown(log.events.slice(log.connectionStart));
    if (!latest) return { latest: log.earlier[0], earlier: log.earlier.slice(1) };
    return { latest, earlier: log.earlier };
  }

  /**
   * Puts back a proxy's connections from an earlier run (oldest first), before anything is recorded
   * for it: their events, then a `restarted` event at `restartedAt`, and their breakdowns as earlier
   * connections, each marked as from before the restart (a stream that never said it closed ended
   * with that run). Neither published nor told to the listeners: nothing happened now.
   */
  restore(proxyId: string, connections: readonly StoredConnection[], restartedAt: number): void {
    if (connections.length === 0 || this.#logs.has(proxyId)) return;
    const log: ProxyLog = { events: [], connectionStart: 0, earlier: [] };
    for (const connection of connections) {
      const breakdown = firstConfigBreakdown(connection.events);
      if (breakdown) log.earlier.unshift({ ...breakdown, open: false, beforeRestart: { restartedAt } });
      for (const body of connection.events) log.events.push({ ...body, seq: ++this.#seq } as ProxyEvent);
    }
    log.earlier = log.earlier.slice(0, EARLIER_CONNECTIONS_KEPT);
    log.events.push({ kind: 'restarted', at: restartedAt, seq: ++this.#seq });
    log.connectionStart = log.events.length;
    trim(log);
    this.#logs.set(proxyId, log);
  }

  proxyIds(): string[] {
    return [...this.#logs.keys()];
  }

  /** Calls `listener` with every event recorded from now on; returns the unsubscribe. */
  listen(listener: TimelineListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Drops a proxy's story, once its retention is over. */
  forget(proxyId: string): void {
    this.#logs.delete(proxyId);
  }
}

/** Drops the oldest events over the bound: from before the current connection first, then after its first ones. */
function trim(log: ProxyLog): void {
  const excess = log.events.length - EVENTS_PER_PROXY;
  if (excess <= 0) return;
  const before = Math.min(excess, log.connectionStart);
  log.events.splice(0, before);
  log.connectionStart -= before;
  if (excess > before) log.events.splice(log.connectionStart + FIRST_EVENTS_KEPT, excess - before);
}
