import type { FirstConfigPhaseName } from '../../shared/api-types.js';
import type { ProxyEvent, TickResult } from '../../shared/proxy-events.js';
import {
  CONNECT_STRATEGIES,
  TICK_RESULTS,
  TICK_WINDOW_SECONDS,
  type CacheCounts,
  type CacheResult,
  type CacheStats,
  type ConnectStrategy,
  type HistogramStats,
  type ProxyFirstConfig,
  type StoreCacheCounter,
  type StrategySummary,
  type TickSecond,
  type XdsStats,
} from '../../shared/stats-types.js';
import type { CachedManager } from '../cache/cached-manager.js';
import type { Settings } from '../config/settings.js';
import type { Metrics } from '../metrics/metrics.js';
import type { FirstConfigBreakdown } from '../xds/status/first-config.js';
import { now, type ProxyTimeline } from '../xds/status/proxy-timeline.js';
import type { Route } from './router.js';

export interface StatsDependencies {
  metrics: Metrics;
  cachedManager: Pick<CachedManager, 'entries'>;
  settings: Pick<Settings, 'get' | 'userValues'>;
  timeline: Pick<ProxyTimeline, 'proxyIds' | 'events' | 'firstConfigs'>;
}

/**
 * What the Cache and Sync timing views draw, computed from what the core already keeps: the
 * Prometheus metrics (counters since start; the UI takes differences between polls), the cache's
 * entries, and each proxy's timeline (first-config breakdowns, ticks of the last minutes).
 * - `GET /stats/cache`: `store_cache` and `mesh_cache` by result, hit ratios, entries, TTL in force;
 * - `GET /stats/xds`: time to first config per proxy and per post-create strategy, `xds_generation`
 *   and `xds_delivery` distributions, and tick results per second.
 */
export function statsRoutes(deps: StatsDependencies): Route[] {
  return [
    { method: 'GET', path: '/stats/cache', handler: async () => ({ json: await cacheStats(deps) }) },
    { method: 'GET', path: '/stats/xds', handler: async () => ({ json: await xdsStats(deps) }) },
  ];
}

async function cacheStats({ metrics, cachedManager, settings }: StatsDependencies): Promise<CacheStats> {
  const byKey = new Map<string, StoreCacheCounter>();
  for (const { labels, value } of (await metrics.storeCache.get()).values) {
    const operation = labels.operation === 'list' ? 'list' : 'get';
    const resourceType = String(labels.resource_type);
    const key = `${operation}:${resourceType}`;
    let counter = byKey.get(key);
    if (!counter) byKey.set(key, (counter = { operation, resourceType, counts: emptyCounts() }));
    addCount(counter.counts, labels.result, value);
  }
  const storeCache = [...byKey.values()].sort(
    (a, b) => a.resourceType.localeCompare(b.resourceType) || a.operation.localeCompare(b.operation),
  );
  const storeCacheTotal = emptyCounts();
  for (const { counts } of storeCache) for (const result of CACHE_RESULTS) storeCacheTotal[result] += counts[result];
  const meshCache = emptyCounts();
  for (const { labels, value } of (await metrics.meshCache.get()).values) addCount(meshCache, labels.result, value);
  return {
    at: Date.now(),
    expirationTime: String(settings.userValues()['store.cache.expirationTime']),
    ttlMs: settings.get('store.cache.expirationTime'),
    storeCache,
    storeCacheTotal,
    meshCache,
    hitRatio: hitRatio(storeCacheTotal),
    meshCacheHitRatio: hitRatio(meshCache),
    entries: cachedManager.entries(),
  };
}

async function xdsStats({ metrics, timeline, settings }: StatsDependencies): Promise<XdsStats> {
  const proxies: ProxyFirstConfig[] = [];
  const samples: ProxyFirstConfig[] = [];
  for (const proxyId of timeline.proxyIds().sort()) {
    const { latest, earlier } = timeline.firstConfigs(proxyId);
    const connections = [...(latest ? [latest] : []), ...earlier].flatMap((breakdown) => {
      const strategy = strategyOf(breakdown);
      return strategy ? [{ proxyId, strategy, cacheExpirationMs: breakdown.cacheExpirationMs, breakdown }] : [];
    });
    if (connections[0]) proxies.push(connections[0]);
    samples.push(...connections);
  }
  return {
    at: Date.now(),
    strategyInForce: settings.get('xds.postCreateStrategy'),
    cacheExpirationInForceMs: settings.get('store.cache.expirationTime'),
    proxies,
    strategies: strategySummaries(samples),
    generation: histogramStats(await metrics.xdsGeneration.get(), 'result'),
    delivery: histogramStats(await metrics.xdsDelivery.get(), 'type'),
    ticks: tickSeconds(timeline.proxyIds().map((proxyId) => timeline.events(proxyId))),
  };
}

const CACHE_RESULTS: readonly CacheResult[] = ['hit', 'miss', 'hit-wait'];

function emptyCounts(): CacheCounts {
  return { hit: 0, miss: 0, 'hit-wait': 0 };
}

function addCount(counts: CacheCounts, result: string | number | undefined, value: number): void {
  if (CACHE_RESULTS.includes(result as CacheResult)) counts[result as CacheResult] += value;
}

/** A hit-wait did not read the store either: it shared a load already in flight. */
function hitRatio(counts: CacheCounts): number | null {
  const lookups = counts.hit + counts.miss + counts['hit-wait'];
  return lookups === 0 ? null : (counts.hit + counts['hit-wait']) / lookups;
}

/**
 * The strategy named by the connection's post-create wait; `api` when it found a Dataplane created
 * through the API; none when it registered nothing (no Dataplane, or refused).
 */
function strategyOf(breakdown: FirstConfigBreakdown): ConnectStrategy | undefined {
  if (breakdown.postCreateWait) return breakdown.postCreateWait.strategy;
  return breakdown.registration?.origin === 'api' ? 'api' : undefined;
}

/** One summary per (strategy, cache expiration) present, strategies in CONNECT_STRATEGIES order, then shortest expiration first. */
function strategySummaries(samples: readonly ProxyFirstConfig[]): StrategySummary[] {
  const expirations = [...new Set(samples.map((sample) => sample.cacheExpirationMs))].sort((a, b) => a - b);
  const groups = CONNECT_STRATEGIES.flatMap((strategy) => expirations.map((cacheExpirationMs) => ({ strategy, cacheExpirationMs })));
  return groups.flatMap(({ strategy, cacheExpirationMs }) => {
    const members = samples.filter((sample) => sample.strategy === strategy && sample.cacheExpirationMs === cacheExpirationMs);
    if (members.length === 0) return [];
    const complete = members.filter((proxy) => proxy.breakdown.total.durationMs !== undefined);
    const totals = complete.map((proxy) => proxy.breakdown.total.durationMs!).sort((a, b) => a - b);
    const meanPhasesMs: Partial<Record<FirstConfigPhaseName, number>> = {};
    for (const proxy of complete) {
      for (const phase of proxy.breakdown.phases) {
        meanPhasesMs[phase.name] = (meanPhasesMs[phase.name] ?? 0) + phase.durationMs / complete.length;
      }
    }
    return [
      {
        strategy,
        cacheExpirationMs,
        proxies: members.length,
        complete: complete.length,
        ...(totals.length > 0 && {
          medianMs: percentile(totals, 0.5),
          p90Ms: percentile(totals, 0.9),
          minMs: totals[0],
          maxMs: totals.at(-1),
        }),
        meanPhasesMs,
      },
    ];
  });
}

/** Nearest rank of sorted values: always one of them, never an interpolation. */
function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** What prom-client's `Histogram.get()` answers, whatever its label names. */
interface HistogramValues {
  values: { metricName?: string; labels: { readonly [label: string]: string | number | undefined }; value: number }[];
}

/** prom-client's cumulative `_bucket{le}` values, per label value, as counts per bucket in ms. */
function histogramStats({ values }: HistogramValues, labelName: string): HistogramStats {
  const bounds = new Set<number>();
  const series = new Map<string, { cumulative: Map<number, number>; count: number; sumSeconds: number }>();
  for (const { metricName, labels, value } of values) {
    const label = String(labels[labelName] ?? '');
    let entry = series.get(label);
    if (!entry) series.set(label, (entry = { cumulative: new Map(), count: 0, sumSeconds: 0 }));
    if (metricName?.endsWith('_bucket') && labels.le !== '+Inf') {
      bounds.add(Number(labels.le));
      entry.cumulative.set(Number(labels.le), value);
    } else if (metricName?.endsWith('_count')) entry.count = value;
    else if (metricName?.endsWith('_sum')) entry.sumSeconds = value;
  }
  const sortedBounds = [...bounds].sort((a, b) => a - b);
  return {
    boundsMs: sortedBounds.map((bound) => bound * 1000),
    series: [...series].map(([label, { cumulative, count, sumSeconds }]) => {
      const upTo = [...sortedBounds.map((bound) => cumulative.get(bound) ?? 0), count];
      return { label, counts: upTo.map((total, index) => total - (upTo[index - 1] ?? 0)), count, sumMs: sumSeconds * 1000 };
    }),
  };
}

/** Every proxy's ticks of the last TICK_WINDOW_SECONDS, counted per second by result. */
function tickSeconds(timelines: ReadonlyArray<readonly ProxyEvent[]>): TickSecond[] {
  const lastSecond = Math.floor(now() / 1000) * 1000;
  const firstSecond = lastSecond - (TICK_WINDOW_SECONDS - 1) * 1000;
  const seconds: TickSecond[] = Array.from({ length: TICK_WINDOW_SECONDS }, (_, index) => ({
    at: firstSecond + index * 1000,
    counts: Object.fromEntries(TICK_RESULTS.map((result) => [result, 0])) as Record<TickResult, number>,
  }));
  for (const events of timelines) {
    for (const event of events) {
      if (event.kind !== 'tick' || event.at < firstSecond) continue;
      const second = seconds[Math.floor((event.at - firstSecond) / 1000)];
      if (second) second.counts[event.result] += 1;
    }
  }
  return seconds;
}
