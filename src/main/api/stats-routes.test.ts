import { describe, expect, it, onTestFinished } from 'vitest';
import type { CacheStats, XdsStats } from '../../shared/stats-types.js';
import { startTestCore } from '../../../test/support/core.js';
import { applyDataplane, clientDataplane } from '../../../test/support/dataplanes.js';
import { eventually } from '../../../test/support/eventually.js';
import { connectGrpcProxy } from '../../../test/ui/support/grpc-proxy.js';
import type { Core } from '../core.js';

async function getJson<T>(core: Core, path: string): Promise<T> {
  const response = await fetch(`${core.api.url}${path}`);
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

/** A real grpc-js-xds client; with `register`, it brings its own Dataplane in its node metadata. */
function connect(core: Core, name: string, register: boolean): void {
  const proxy = connectGrpcProxy({
    adsPort: core.xds.port,
    name,
    target: 'echo',
    ...(register && { register: { networking: { address: '127.0.0.1', outbound: [{ port: 10001, tags: { 'kuma.io/service': 'echo' } }] } } }),
  });
  onTestFinished(() => proxy.close());
}

describe('GET /stats/cache', () => {
  it('counts cached manager lookups by operation, type and result, with the hit ratio', async () => {
    const core = await startTestCore();
    // Nothing else reads through the caches while no proxy is connected: the counts are exactly these.
    await core.cachedManager.list('Dataplane', { mesh: 'default' });
    await core.cachedManager.list('Dataplane', { mesh: 'default' });
    await core.cachedManager.get('Mesh', { mesh: '', name: 'default' });

    const stats = await getJson<CacheStats>(core, '/stats/cache');

    expect(stats.storeCache).toEqual([
      { operation: 'list', resourceType: 'Dataplane', counts: { hit: 1, miss: 1, 'hit-wait': 0 } },
      { operation: 'get', resourceType: 'Mesh', counts: { hit: 0, miss: 1, 'hit-wait': 0 } },
    ]);
    expect(stats.storeCacheTotal).toEqual({ hit: 1, miss: 2, 'hit-wait': 0 });
    expect(stats.hitRatio).toBeCloseTo(1 / 3);
    expect(stats.meshCache).toEqual({ hit: 0, miss: 0, 'hit-wait': 0 });
    expect(stats.meshCacheHitRatio).toBeNull();
    expect(stats.entries.map((entry) => entry.key).sort()).toEqual(['GET:Mesh:default:', 'LIST:Dataplane:default']);
  });

  it('shows the cache expiration in force, changed live through PUT /settings', async () => {
    const core = await startTestCore();
    expect(await getJson<CacheStats>(core, '/stats/cache')).toMatchObject({ expirationTime: '1s', ttlMs: 1000 });

    const put = await fetch(`${core.api.url}/settings`, { method: 'PUT', body: JSON.stringify({ 'store.cache.expirationTime': '250ms' }) });
    expect(put.status).toBe(200);

    expect(await getJson<CacheStats>(core, '/stats/cache')).toMatchObject({ expirationTime: '250ms', ttlMs: 250 });
  });

  it('counts MeshContext lookups once a proxy is kept in sync', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    connect(core, 'frontend-1', true);

    // A MeshContext miss is counted when its build starts; the store reads it makes come after.
    await eventually(async () => {
      const stats = await getJson<CacheStats>(core, '/stats/cache');
      expect(stats.meshCache.miss).toBeGreaterThan(0);
      expect(stats.storeCache.map((counter) => `${counter.operation}:${counter.resourceType}`)).toEqual(
        expect.arrayContaining(['list:Dataplane', 'get:Mesh']),
      );
    });
  });
});

describe('GET /stats/xds', () => {
  it('gives each proxy its time to first config under the strategy it connected with, and compares strategies', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    connect(core, 'frontend-1', true);
    await applyDataplane(core, clientDataplane('api-client'));
    connect(core, 'api-client', false);

    const stats = await eventually(async () => {
      const stats = await getJson<XdsStats>(core, '/stats/xds');
      expect(stats.proxies.map((proxy) => [proxy.proxyId, proxy.strategy, proxy.breakdown.total.complete])).toEqual([
        ['default.api-client', 'api', true],
        ['default.frontend-1', 'invalidate', true],
      ]);
      return stats;
    });

    expect(stats.strategyInForce).toBe('invalidate');
    // Listed in the order sleep, invalidate, none, api; one complete proxy each, so every figure is its total.
    expect(stats.strategies.map((summary) => summary.strategy)).toEqual(['invalidate', 'api']);
    for (const summary of stats.strategies) {
      const proxy = stats.proxies.find((each) => each.strategy === summary.strategy)!;
      const total = proxy.breakdown.total.durationMs!;
      expect(summary).toMatchObject({ proxies: 1, complete: 1, medianMs: total, p90Ms: total, minMs: total, maxMs: total });
      expect(Object.keys(summary.meanPhasesMs)).toEqual(proxy.breakdown.phases.map((phase) => phase.name));
    }
    expect(stats.strategies[0]!.meanPhasesMs).toHaveProperty('post-create-wait');
    expect(stats.strategies[1]!.meanPhasesMs).not.toHaveProperty('post-create-wait');
  });

  it('gives the generation and delivery distributions and the ticks of the last seconds', async () => {
    const core = await startTestCore();
    core.settings.update({ 'xds.postCreateStrategy': 'invalidate' });
    connect(core, 'frontend-1', true);

    const stats = await eventually(async () => {
      const stats = await getJson<XdsStats>(core, '/stats/xds');
      expect(stats.delivery.series.map((series) => series.label).sort()).toEqual(['cds', 'eds', 'lds', 'rds']);
      return stats;
    });

    for (const histogram of [stats.generation, stats.delivery]) {
      expect(histogram.boundsMs).toEqual([...histogram.boundsMs].sort((a, b) => a - b));
      for (const series of histogram.series) {
        expect(series.counts).toHaveLength(histogram.boundsMs.length + 1);
        expect(series.counts.reduce((sum, count) => sum + count, 0)).toBe(series.count);
      }
    }
    expect(stats.generation.boundsMs[0]).toBeCloseTo(0.1); // xds_generation's first bucket is 100 µs
    const changed = stats.generation.series.find((series) => series.label === 'changed');
    expect(changed?.count).toBeGreaterThanOrEqual(1);

    // Every tick on the timeline within the window is counted once, in the second it ended in.
    const firstSecond = stats.ticks[0]!.at;
    const ticksOnTimeline = core.xds.timeline
      .events('default.frontend-1')
      .filter((event) => event.kind === 'tick' && event.at >= firstSecond && event.at < stats.ticks.at(-1)!.at + 1000).length;
    const counted = stats.ticks.reduce((sum, second) => sum + Object.values(second.counts).reduce((a, b) => a + b, 0), 0);
    expect(stats.ticks.length).toBe(120);
    expect(counted).toBeLessThanOrEqual(ticksOnTimeline);
    expect(counted).toBeGreaterThanOrEqual(1);
  });
});
