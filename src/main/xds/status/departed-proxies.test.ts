import { status } from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../metrics/metrics.js';
import { adaptProxyCallbacks } from '../callbacks/proxy-callbacks-adapter.js';
import type { ProxyCallbacks } from '../callbacks/proxy-callbacks.js';
import { StatusTracker } from '../callbacks/status-tracker.js';
import { CLUSTER_TYPE_URL } from '../protocol/type-urls.js';
import { AdsServer } from '../server/ads-server.js';
import { StreamError } from '../server/callbacks.js';
import { SnapshotCache } from '../server/snapshot-cache.js';
import { RawAdsClient } from '../server/testing/raw-ads-client.js';
import { DepartedProxies } from './departed-proxies.js';
import { ProxyTimeline } from './proxy-timeline.js';

const DAY = 24 * 3_600_000;
const closers: Array<() => unknown> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Departures on a clock the test moves, for the retention only (nothing else here reads it). */
function departures(options: { retention?: number; limit?: number } = {}) {
  let clock = 1_000_000;
  const expired: string[] = [];
  const departed = new DepartedProxies({
    retention: () => options.retention ?? DAY,
    limit: options.limit ?? 1000,
    onExpired: (proxyId) => expired.push(proxyId),
    now: () => clock,
  });
  closers.push(() => departed.close());
  return { departed, expired, advance: (ms: number) => (clock += ms) };
}

describe('DepartedProxies', () => {
  it('keeps a departed proxy a minute later and forgets it once the retention is over', () => {
    const { departed, expired, advance } = departures();
    departed.depart('default.web-1');

    advance(60_000);
    departed.sweep();
    expect(departed.get('default.web-1')).toEqual({ at: 1_000_000, expiresAt: 1_000_000 + DAY });
    expect(expired).toEqual([]);

    advance(DAY);
    departed.sweep();
    expect(departed.get('default.web-1')).toBeUndefined();
    expect(expired).toEqual(['default.web-1']);
  });

  it('keeps at most `limit`, the earliest departed going first; a proxy that comes back is no longer departed', () => {
    const { departed, expired, advance } = departures({ limit: 3 });
    for (const name of ['a', 'b', 'c']) {
      departed.depart(`default.${name}`);
      advance(1);
    }
    departed.returned('default.a');
    departed.depart('default.d');
    departed.depart('default.e');

    expect(expired).toEqual(['default.b']);
    expect(departed.size).toBe(3);
    expect(departed.get('default.a')).toBeUndefined();
  });
});

describe('refused and unknown node ids are bounded', () => {
  it('keeps the status and timeline of at most `limit` departed proxies, however many node ids connect', async () => {
    const timeline = new ProxyTimeline();
    const departed = new DepartedProxies({
      retention: () => DAY,
      limit: 5,
      onExpired: (proxyId) => {
        tracker.forget(proxyId);
        timeline.forget(proxyId);
      },
    });
    closers.push(() => departed.close());
    const tracker = new StatusTracker({ timeline, metrics: createMetrics(), departures: departed });
    // A callback that refuses every proxy, as the lifecycle does an invalid Dataplane.
    const refuseAll: ProxyCallbacks = {
      onProxyConnected: (proxy) => {
        timeline.record(proxy.proxyId, { kind: 'stream-opened', at: proxy.streamOpenedAt, streamId: proxy.streamId, cacheExpirationMs: 1000 });
        throw new StreamError(status.FAILED_PRECONDITION, `proxy "${proxy.proxyId}" refused`);
      },
      onProxyDisconnected: () => {},
    };
    const server = new AdsServer({ snapshots: new SnapshotCache(), callbacks: [adaptProxyCallbacks(refuseAll), tracker] });
    const port = await server.start({ port: 0 });
    closers.push(() => server.stop());

    for (let index = 0; index < 40; index++) {
      const client = new RawAdsClient(port, { id: `default.made-up-${index}` });
      client.send(CLUSTER_TYPE_URL);
      await client.status;
      client.close();
    }

    await expect.poll(() => tracker.proxies().length).toBe(5);
    expect(timeline.proxyIds()).toHaveLength(5);
    expect(tracker.proxies().map((proxy) => proxy.proxyId)).toEqual([35, 36, 37, 38, 39].map((index) => `default.made-up-${index}`));
    expect(tracker.proxies().every((proxy) => proxy.state === 'refused' && proxy.departure !== undefined)).toBe(true);
  });
});
