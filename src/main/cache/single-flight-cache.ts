/** How a lookup was answered: from a fresh entry, by loading, or by waiting for another caller's load. */
export type LookupResult = 'hit' | 'miss' | 'hit-wait';

export interface Lookup<V> {
  result: LookupResult;
  /** Rejects when the load fails; callers must await it. */
  value: Promise<V>;
}

export interface CacheEntry<V> {
  key: string;
  value: V;
  ageMs: number;
  timeLeftMs: number;
}

export interface SingleFlightCacheOptions {
  /** Time to live in ms, read on every lookup so that a new value applies at once; 0 caches nothing. */
  ttl: () => number;
  /** Monotonic clock in ms; tests pass their own. */
  now?: () => number;
}

/** Expired entries are dropped at this pace even when nobody reads them again, within these bounds. */
const SWEEP_MIN_MS = 1_000;
const SWEEP_MAX_MS = 60_000;

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * An async TTL cache with single flight: on a miss exactly one caller runs `load`, and every caller
 * asking for the same key meanwhile waits for that same load (Kuma's per-key mutex, without the mutex).
 *
 * An entry is fresh while `now - loadedAt < ttl()`, with `loadedAt` taken when its load finished.
 * Failed loads are never cached: their waiters get the same error, and the next lookup loads again.
 * Invalidating a key also forgets a load in progress, so that a read which may predate the
 * invalidating write cannot refill the cache with it.
 */
export class SingleFlightCache<V> {
  readonly #ttl: () => number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loads = new Map<string, Promise<V>>();
  #sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: SingleFlightCacheOptions) {
    this.#ttl = () => Math.max(0, options.ttl());
    this.#now = options.now ?? (() => performance.now());
  }

  /** Classifies the lookup at once (for metrics that must count failed loads too) and hands over the pending value. */
  lookup(key: string, load: () => Promise<V>): Lookup<V> {
    const entry = this.#entries.get(key);
    if (entry) {
      if (this.#now() - entry.loadedAt < this.#ttl()) return { result: 'hit', value: Promise.resolve(entry.value) };
      this.#entries.delete(key);
    }
    const inFlight = this.#loads.get(key);
    if (inFlight) return { result: 'hit-wait', value: inFlight };
    return { result: 'miss', value: this.#load(key, load) };
  }

  async get(key: string, load: () => Promise<V>): Promise<{ value: V; result: LookupResult }> {
    const { result, value } = this.lookup(key, load);
    return { result, value: await value };
  }

  invalidate(key: string): void {
    this.#entries.delete(key);
    this.#loads.delete(key);
  }

  invalidateWhere(predicate: (key: string) => boolean): void {
    for (const key of [...this.#entries.keys(), ...this.#loads.keys()]) {
      if (predicate(key)) this.invalidate(key);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#loads.clear();
  }

  /** Fresh entries only; expired ones are dropped on the way. */
  entries(): CacheEntry<V>[] {
    this.#sweep();
    const now = this.#now();
    const ttl = this.#ttl();
    return [...this.#entries].map(([key, { value, loadedAt }]) => ({
      key,
      value,
      ageMs: now - loadedAt,
      timeLeftMs: ttl - (now - loadedAt),
    }));
  }

  /** Entries held, fresh or expired but not yet swept. */
  get size(): number {
    return this.#entries.size;
  }

  /** Drops everything and stops the sweep timer. */
  close(): void {
    this.clear();
    clearTimeout(this.#sweepTimer);
    this.#sweepTimer = undefined;
  }

  #load(key: string, load: () => Promise<V>): Promise<V> {
    // The executor also turns a synchronous throw of `load` into a rejection.
    const flight: Promise<V> = new Promise<V>((resolve) => resolve(load())).then(
      (value) => {
        if (this.#loads.get(key) === flight) {
          this.#loads.delete(key);
          this.#store(key, value);
        }
        return value;
      },
      (error: unknown) => {
        if (this.#loads.get(key) === flight) this.#loads.delete(key);
        throw error;
      },
    );
    this.#loads.set(key, flight);
    return flight;
  }

  #store(key: string, value: V): void {
    if (this.#ttl() === 0) return;
    this.#entries.set(key, { value, loadedAt: this.#now() });
    this.#scheduleSweep();
  }

  #sweep(): void {
    const now = this.#now();
    const ttl = this.#ttl();
    for (const [key, { loadedAt }] of this.#entries) {
      if (now - loadedAt >= ttl) this.#entries.delete(key);
    }
  }

  /** Runs only while entries exist; unref'd so that it never keeps the process alive. */
  #scheduleSweep(): void {
    if (this.#sweepTimer) return;
    const delay = Math.min(Math.max(this.#ttl(), SWEEP_MIN_MS), SWEEP_MAX_MS);
    this.#sweepTimer = setTimeout(() => {
      this.#sweepTimer = undefined;
      this.#sweep();
      if (this.#entries.size > 0) this.#scheduleSweep();
    }, delay);
    this.#sweepTimer.unref();
  }
}
