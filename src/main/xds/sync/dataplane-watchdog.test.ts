import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompositeGenerator } from '../generate/generator.js';
import { generateProxy } from '../generate/profile.js';
import type { GeneratedResources } from '../generate/resources.js';
import { PolicyEffects } from '../status/policy-effects.js';
import { now } from '../status/proxy-timeline.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { DataplaneWatchdog, type DataplaneWatchdogOptions } from './dataplane-watchdog.js';
import { SnapshotReconciler } from './reconcile.js';
import { SyncFixture, connectedProxy, sidecar } from './testing/sync-fixture.js';

const WEB = connectedProxy('web-1');

let fixture: SyncFixture;

function watchdog(options: Partial<DataplaneWatchdogOptions> = {}): DataplaneWatchdog {
  return new DataplaneWatchdog({
    proxy: WEB,
    meshContexts: fixture.meshContexts,
    reconciler: new SnapshotReconciler({ snapshots: fixture.snapshots, history: fixture.history }),
    timeline: fixture.timeline,
    metrics: fixture.metrics,
    ...options,
  });
}

beforeEach(async () => {
  fixture = await SyncFixture.create();
  await fixture.manager.create(sidecar('backend-1', 'backend', '127.0.0.2'));
});

afterEach(() => fixture.close());

describe('DataplaneWatchdog', () => {
  it('records "dataplane not found" while the cached context predates the Dataplane, and generates once it expired', async () => {
    const dog = watchdog();

    expect(await dog.sync()).toBe('dataplane-not-found');
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    expect(await dog.sync()).toBe('dataplane-not-found');
    fixture.expireCaches();
    expect(await dog.sync()).toBe('changed');

    expect(fixture.ticks(WEB.proxyId).map(({ result, detail }) => [result, detail])).toEqual([
      ['dataplane-not-found', 'dataplane not found'],
      ['dataplane-not-found', 'dataplane not found'],
      ['changed', undefined],
    ]);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)!.get(LISTENER_TYPE_URL)!.resources.has('outbound:127.0.0.1:10001')).toBe(true);
  });

  it('records the versions it published on a changed tick, as the snapshot and the history hold them', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));

    await watchdog().sync();

    const [tick] = fixture.ticks(WEB.proxyId);
    const snapshot = fixture.snapshots.getSnapshot(WEB.proxyId)!;
    expect(tick!.versions).toEqual(Object.fromEntries([...snapshot].map(([typeUrl, { version }]) => [typeUrl, version])));
    expect(fixture.history.latest(WEB.proxyId)!.versions).toEqual(tick!.versions);
    expect(tick!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records how long a generating tick waited before it generated apart from the generation, and no wait for a skip', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const dog = watchdog();

    await dog.sync();
    await dog.sync();

    const [generated, skipped] = fixture.ticks(WEB.proxyId);
    expect(generated).toMatchObject({ result: 'changed', queuedMs: expect.any(Number) });
    expect(generated!.queuedMs).toBeGreaterThanOrEqual(0);
    expect(skipped!.result).toBe('skip');
    expect(skipped).not.toHaveProperty('queuedMs');
  });

  it('ends a tick where its generation ended, not after the generations of other proxies queued behind it', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    await fixture.manager.create(sidecar('api-1', 'api', '127.0.0.3', ['backend']));
    const generationStarts = new Map<string, number>();
    const generate: DataplaneWatchdogOptions['generate'] = (context, proxy) => {
      generationStarts.set(proxy.id, now());
      return generateProxy(context, proxy);
    };

    await Promise.all([watchdog({ generate }).sync(), watchdog({ proxy: connectedProxy('api-1'), generate }).sync()]);

    const [[firstProxyId], [, secondStartedAt]] = [...generationStarts];
    expect(fixture.ticks(firstProxyId)[0]!.at).toBeLessThanOrEqual(secondStartedAt);
  });

  it('keeps what the policies did to the proxy with the versions they belong to, on every generation', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const policyEffects = new PolicyEffects();
    const origins = [{ type: 'MeshTimeout' as const, mesh: 'default', name: 'slow', item: 'spec.to[0]' }];
    const dog = watchdog({
      policyEffects,
      generate: (context, proxy) => ({
        ...generateProxy(context, proxy, []),
        attributions: [{ typeUrl: CLUSTER_TYPE_URL, resource: 'backend', path: 'connect_timeout', origins }],
        unapplied: [],
      }),
    });

    await dog.sync();

    const [tick] = fixture.ticks(WEB.proxyId);
    expect(policyEffects.get(WEB.proxyId)).toEqual({
      proxyId: WEB.proxyId,
      versions: tick!.versions,
      attributions: [{ typeUrl: CLUSTER_TYPE_URL, resource: 'backend', path: 'connect_timeout', origins }],
      unapplied: [],
    });
  });

  it('skips while the context hash is unchanged, even after the caches expired', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const dog = watchdog();
    await dog.sync();
    const published = fixture.snapshots.getSnapshot(WEB.proxyId);

    expect(await dog.sync()).toBe('skip');
    fixture.expireCaches();
    expect(await dog.sync()).toBe('skip');

    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBe(published);
    expect(fixture.history.list(WEB.proxyId)).toHaveLength(1);
  });

  it('publishes a new snapshot, with only the endpoints changed, when an endpoint of a service it uses joins', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const dog = watchdog();
    await dog.sync();
    const before = fixture.snapshots.getSnapshot(WEB.proxyId)!;

    await fixture.manager.create(sidecar('backend-2', 'backend', '127.0.0.3'));
    fixture.expireCaches();

    expect(await dog.sync()).toBe('changed');
    const after = fixture.snapshots.getSnapshot(WEB.proxyId)!;
    expect(fixture.history.latest(WEB.proxyId)!.changedTypes).toEqual([ENDPOINT_TYPE_URL]);
    expect(after.get(ENDPOINT_TYPE_URL)!.version).not.toBe(before.get(ENDPOINT_TYPE_URL)!.version);
    for (const typeUrl of [CLUSTER_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL]) {
      expect(after.get(typeUrl)!.version).toBe(before.get(typeUrl)!.version);
    }
  });

  it('generates but publishes nothing when the context changed without touching this proxy (an unrelated service joined)', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const dog = watchdog();
    await dog.sync();
    const published = fixture.snapshots.getSnapshot(WEB.proxyId);

    await fixture.manager.create(sidecar('db-1', 'db', '127.0.0.4'));
    fixture.expireCaches();

    expect(await dog.sync()).toBe('generated');
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBe(published);
    expect(fixture.history.list(WEB.proxyId)).toHaveLength(1);
    expect(await dog.sync()).toBe('skip');
  });

  it('keeps the last snapshot when a generator fails, names the proxy and the generator, and retries next tick', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    let broken = false;
    const failing = new CompositeGenerator('envoy-profile', [
      {
        name: 'outbound-proxy',
        generate: () => {
          throw new Error('no route to "backend"');
        },
      },
    ]);
    const dog = watchdog({
      generate: (context, proxy) => (broken ? { resources: failing.generate(context, proxy), attributions: [], unapplied: [] } : generateProxy(context, proxy)),
    });
    await dog.sync();
    const published = fixture.snapshots.getSnapshot(WEB.proxyId);

    broken = true;
    await fixture.manager.create(sidecar('backend-2', 'backend', '127.0.0.3'));
    fixture.expireCaches();
    expect(await dog.sync()).toBe('error');
    expect(fixture.ticks(WEB.proxyId).at(-1)!.detail).toBe(
      'generator "outbound-proxy" failed for proxy "default.web-1": no route to "backend"',
    );
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBe(published);

    broken = false;
    expect(await dog.sync()).toBe('changed');
  });

  it('withholds a generated resource that does not encode, naming it on the tick, and still sends the rest', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    let broken = false;
    const withTypo = (resources: GeneratedResources): GeneratedResources => ({
      ...resources,
      [CLUSTER_TYPE_URL]: resources[CLUSTER_TYPE_URL].map(({ name, resource }) => ({
        name,
        resource: { ...resource, conect_timeout: '1s' },
      })),
    });
    const dog = watchdog({
      generate: (context, proxy) => {
        const generated = generateProxy(context, proxy);
        return broken ? { ...generated, resources: withTypo(generated.resources) } : generated;
      },
    });
    await dog.sync();
    const published = fixture.snapshots.getSnapshot(WEB.proxyId)!;

    broken = true;
    await fixture.manager.create(sidecar('backend-2', 'backend', '127.0.0.3'));
    fixture.expireCaches();

    expect(await dog.sync()).toBe('changed');
    const tick = fixture.ticks(WEB.proxyId).at(-1)!;
    expect(tick.withheld).toContainEqual({
      typeUrl: CLUSTER_TYPE_URL,
      name: 'backend',
      reason: expect.stringMatching(/^cannot encode cds resource "backend": conect_timeout: unknown field/),
      kept: true,
    });
    const snapshot = fixture.snapshots.getSnapshot(WEB.proxyId)!;
    expect(snapshot.get(CLUSTER_TYPE_URL)!.version).toBe(published.get(CLUSTER_TYPE_URL)!.version);
    expect(JSON.stringify(snapshot.get(ENDPOINT_TYPE_URL)!.resources.get('backend')!.json)).toContain('127.0.0.3');
    expect(fixture.history.list(WEB.proxyId)).toHaveLength(2);
  });

  it('records an error naming the mesh and the proxy when the mesh cannot be read', async () => {
    const proxy = { ...WEB, proxyId: 'nowhere.web-1', dataplaneKey: { type: 'Dataplane' as const, mesh: 'nowhere', name: 'web-1' } };

    expect(await watchdog({ proxy }).sync()).toBe('error');
    expect(fixture.ticks('nowhere.web-1')[0]!.detail).toBe(
      'cannot read mesh "nowhere" for proxy "nowhere.web-1": Mesh "nowhere" not found',
    );
  });

  it('records and publishes nothing when aborted while its context was loading', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const stopping = new AbortController();

    const tick = watchdog().sync(stopping.signal);
    stopping.abort();

    expect(await tick).toBeUndefined();
    expect(fixture.ticks(WEB.proxyId)).toEqual([]);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeUndefined();
  });

  it('times every tick in xds_generation by result', async () => {
    const dog = watchdog();
    await dog.sync();
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    fixture.expireCaches();
    await dog.sync();
    await dog.sync();
    await dog.sync();

    expect(await fixture.generationCounts()).toEqual({ 'dataplane-not-found': 1, changed: 1, skip: 2 });
  });
});
