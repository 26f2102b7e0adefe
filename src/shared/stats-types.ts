// The JSON bodies of `GET /stats/cache` and `GET /stats/xds`: what the Cache and Sync timing views draw.
// Types, and the few lists both sides must agree on.

import type { CacheEntry, FirstConfigBreakdown, FirstConfigPhaseName } from './api-types.js';
import type { TickResult } from './proxy-events.js';

export type CacheResult = 'hit' | 'miss' | 'hit-wait';

/** Lookups by result; a hit-wait waited for a load already in flight, so it did not read the store either. */
export type CacheCounts = Record<CacheResult, number>;

/** One `store_cache{operation,resource_type,result}` series, folded by result. */
export interface StoreCacheCounter {
  operation: 'get' | 'list';
  resourceType: string;
  counts: CacheCounts;
}

/** `GET /stats/cache`: the counters since the core started, the entries now, and the TTL in force. */
export interface CacheStats {
  /** When the core answered, epoch ms. */
  at: number;
  /** `store.cache.expirationTime` in force, as a user writes it ("1s") and in ms. */
  expirationTime: string;
  ttlMs: number;
  storeCache: StoreCacheCounter[];
  /** Every store_cache lookup, by result. */
  storeCacheTotal: CacheCounts;
  /** `mesh_cache{result}`: MeshContext lookups. */
  meshCache: CacheCounts;
  /** (hit + hit-wait) / lookups; null before the first lookup. */
  hitRatio: number | null;
  meshCacheHitRatio: number | null;
  entries: CacheEntry[];
}

/**
 * The post-create strategy a connection ran under: the proxy registered its Dataplane through its
 * metadata and waited by this strategy, or (`api`) it connected to a Dataplane created through the
 * API or UI, found when it connected (no wait). A connection that found no Dataplane, or was
 * refused, has no strategy and no time to first config: the Proxies view says what happened.
 */
export type ConnectStrategy = 'sleep' | 'invalidate' | 'none' | 'api';

/** A proxy's latest connection that registered (found or brought) its Dataplane. */
export interface ProxyFirstConfig {
  proxyId: string;
  strategy: ConnectStrategy;
  /** `store.cache.expirationTime` in force when that connection opened. */
  cacheExpirationMs: number;
  breakdown: Omit<FirstConfigBreakdown, 'proxyId'>;
}

/**
 * Time to first config of every connection (each proxy's latest and the earlier ones kept) under
 * one strategy and one cache expiration (complete ones only in the figures): the post-create wait
 * of `sleep` is the expiration, so samples of different expirations are not mixed.
 */
export interface StrategySummary {
  strategy: ConnectStrategy;
  cacheExpirationMs: number;
  /** Connections in this group (a proxy that reconnected counts once per connection). */
  proxies: number;
  complete: number;
  medianMs?: number;
  p90Ms?: number;
  minMs?: number;
  maxMs?: number;
  /** Mean duration of each phase over the complete proxies: they add up to the mean total. */
  meanPhasesMs: Partial<Record<FirstConfigPhaseName, number>>;
}

/** A prom-client histogram, one series per label value, counts per bucket (not cumulative). */
export interface HistogramStats {
  /** Upper bounds of the buckets in ms; `counts` has one more entry, for everything above the last. */
  boundsMs: number[];
  series: { label: string; counts: number[]; count: number; sumMs: number }[];
}

/** Ticks of every proxy that ended in one second, by result. */
export interface TickSecond {
  /** Start of the second, epoch ms. */
  at: number;
  counts: Record<TickResult, number>;
}

/** `GET /stats/xds` */
export interface XdsStats {
  at: number;
  /** `xds.postCreateStrategy` in force: what the next proxy that registers through its metadata gets. */
  strategyInForce: 'sleep' | 'invalidate' | 'none';
  /** `store.cache.expirationTime` in force, ms. */
  cacheExpirationInForceMs: number;
  /** Proxies with a registered connection on their timeline, by node id. */
  proxies: ProxyFirstConfig[];
  /** One per (strategy, cache expiration) some connection ran under, strategies in the order sleep, invalidate, none, api, then by expiration. */
  strategies: StrategySummary[];
  /** `xds_generation` by result: the time of one sync tracker tick. */
  generation: HistogramStats;
  /** `xds_delivery` by type: snapshot set → ACK. */
  delivery: HistogramStats;
  /** The last `TICK_WINDOW_SECONDS` seconds, oldest first, one entry per second (zeros included). */
  ticks: TickSecond[];
}

export const TICK_RESULTS: readonly TickResult[] = ['skip', 'generated', 'changed', 'dataplane-not-found', 'error'];
export const CONNECT_STRATEGIES: readonly ConnectStrategy[] = ['sleep', 'invalidate', 'none', 'api'];
export const TICK_WINDOW_SECONDS = 120;
