import { now as timelineNow } from './proxy-timeline.js';

export interface DepartedProxiesOptions {
  /** `xds.departedProxyRetention` in force, ms. */
  retention: () => number;
  /** At most this many departed proxies are kept; past it, the one that departed first goes. */
  limit: number;
  /** Drops everything kept about the proxy (status, timeline, history). */
  onExpired: (proxyId: string) => void;
  /** Told each departure (`at`) and each return of a departed proxy (null), to be stored. */
  onChange?: (proxyId: string, at: number | null) => void;
  /** The timeline's clock; tests bring one they move by hand. */
  now?: () => number;
  /** How often expired departures are looked for. */
  sweepEveryMs?: number;
}

/** When a proxy departed, and until when its story is kept. */
export interface Departure {
  at: number;
  expiresAt: number;
}

/** Default bound: a laptop's proxies are dozens; a crash-looping or hostile client makes thousands of ids. */
export const DEPARTED_PROXIES_KEPT = 1000;

/**
 * The proxies that left for good, whose story is kept for a while: a departed proxy stays listed
 * (marked departed, with the time) with its timeline, first configs and history for
 * `xds.departedProxyRetention`, and at most `limit` of them are kept, the earliest departed going
 * first. A proxy that comes back is no longer departed. This is the one lifetime of every
 * per-proxy structure whose proxy is gone: node ids without a Dataplane and refused proxies
 * included, however many a client makes up.
 */
export class DepartedProxies {
  readonly #options: DepartedProxiesOptions;
  readonly #now: () => number;
  /** In order of departure (a proxy departing again moves to the end). */
  readonly #departed = new Map<string, number>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: DepartedProxiesOptions) {
    this.#options = options;
    this.#now = options.now ?? timelineNow;
    this.#sweeper = setInterval(() => this.sweep(), options.sweepEveryMs ?? 1000).unref();
  }

  depart(proxyId: string): void {
    this.#departed.delete(proxyId);
    const at = this.#now();
    this.#departed.set(proxyId, at);
    this.#options.onChange?.(proxyId, at);
    for (const [oldest] of this.#departed) {
      if (this.#departed.size <= this.#options.limit) break;
      this.#expire(oldest);
    }
    this.sweep();
  }

  /** The proxy connected again. */
  returned(proxyId: string): void {
    if (this.#departed.delete(proxyId)) this.#options.onChange?.(proxyId, null);
  }

  /**
   * Puts back departures read from the database at start, in the order given (by `at`); expired
   * ones go at the next sweep, so a retention that ran out while meshdesk was stopped is kept too.
   */
  restore(departures: ReadonlyArray<{ proxyId: string; at: number }>): void {
    for (const { proxyId, at } of departures) this.#departed.set(proxyId, at);
  }

  get(proxyId: string): Departure | undefined {
    const at = this.#departed.get(proxyId);
    return at === undefined ? undefined : { at, expiresAt: at + this.#options.retention() };
  }

  get size(): number {
    return this.#departed.size;
  }

  /** Forgets every departure older than the retention in force now (called every `sweepEveryMs`). */
  sweep(): void {
    const oldestKept = this.#now() - this.#options.retention();
    for (const [proxyId, at] of this.#departed) {
      if (at > oldestKept) break; // in order of departure: the rest are younger
      this.#expire(proxyId);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
  }

  #expire(proxyId: string): void {
    this.#departed.delete(proxyId);
    this.#options.onExpired(proxyId);
  }
}
