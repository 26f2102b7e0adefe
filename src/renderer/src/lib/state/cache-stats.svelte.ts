import type { CacheCounts, CacheStats } from '../../../../shared/stats-types.js';
import { client } from '../api/index.js';
import { Polled } from './polled.svelte.js';

/** Lookups per second over one poll interval, by result. */
export interface CacheRateSample {
  /** Epoch ms (the core's clock). */
  at: number;
  store: CacheCounts;
  mesh: CacheCounts;
}

/** A change of the cache expiration seen between two polls, for the chart to mark. */
export interface TtlChange {
  at: number;
  from: string;
  to: string;
}

/** Five minutes of one-second polls. */
export const CACHE_HISTORY_SAMPLES = 300;
const POLL_MS = 1000;

/**
 * The Cache view's counters: `GET /stats/cache` every second, and a client-side ring buffer of the
 * lookup rates between polls (the core keeps only totals), with the TTL changes seen on the way.
 * A settings change is fetched at once, so the chart marks it where it happened. One for the whole
 * app, polling from the first visit of the Cache view on: leaving the view and coming back finds
 * the chart's history whole, not started over.
 */
class CacheStatsState {
  #history = $state.raw<CacheRateSample[]>([]);
  #ttlChanges = $state.raw<TtlChange[]>([]);
  #previous: CacheStats | undefined;
  #started = false;

  readonly #stats = new Polled<CacheStats>({
    load: () => client.cacheStats(),
    everyMs: POLL_MS,
    onvalue: (stats) => this.#record(stats),
    refreshOn: (event) => event.topic === 'settings.changed' && 'store.cache.expirationTime' in event.changed,
  });

  get current(): CacheStats | undefined {
    return this.#stats.current;
  }

  get error(): string | undefined {
    return this.#stats.error;
  }

  get history(): CacheRateSample[] {
    this.#keepPolling();
    return this.#history;
  }

  /** Only those still inside the history's window. */
  get ttlChanges(): TtlChange[] {
    this.#keepPolling();
    return this.#ttlChanges;
  }

  /** Applies a new expiration time; throws the API's error (400 naming the setting) for the field to show. */
  async applyExpirationTime(value: string): Promise<void> {
    await client.updateSettings({ 'store.cache.expirationTime': value });
    await this.#stats.refresh();
  }

  /** Polls from now on, whether or not a view shows the numbers (idempotent). */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    $effect.root(() => {
      $effect(() => {
        void this.#stats.current;
      });
    });
  }

  /** Reading any of it keeps the polls going, as reading `current` does. */
  #keepPolling(): void {
    void this.#stats.current;
  }

  #record(stats: CacheStats): void {
    const previous = this.#previous;
    this.#previous = stats;
    if (!previous || stats.at <= previous.at) return;
    const seconds = (stats.at - previous.at) / 1000;
    const sample = {
      at: stats.at,
      store: rates(previous.storeCacheTotal, stats.storeCacheTotal, seconds),
      mesh: rates(previous.meshCache, stats.meshCache, seconds),
    };
    const history = [...this.#history, sample].slice(-CACHE_HISTORY_SAMPLES);
    this.#history = history;
    const oldest = history[0]!.at;
    const changes = this.#ttlChanges.filter((change) => change.at >= oldest);
    if (stats.expirationTime !== previous.expirationTime) changes.push({ at: stats.at, from: previous.expirationTime, to: stats.expirationTime });
    this.#ttlChanges = changes;
  }
}

export const cacheStats = new CacheStatsState();

/** Counters only grow; a smaller one means the core restarted, and that interval counts from zero. */
function rates(before: CacheCounts, after: CacheCounts, seconds: number): CacheCounts {
  const rate = (result: keyof CacheCounts) => Math.max(0, after[result] - (after[result] >= before[result] ? before[result] : 0)) / seconds;
  return { hit: rate('hit'), miss: rate('miss'), 'hit-wait': rate('hit-wait') };
}
