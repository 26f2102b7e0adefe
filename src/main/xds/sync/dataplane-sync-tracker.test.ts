import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Settings } from '../../config/settings.js';
import { ENDPOINT_TYPE_URL } from '../protocol/type-urls.js';
import { DataplaneSyncTracker } from './dataplane-sync-tracker.js';
import { ManualTimers } from './testing/manual-timers.js';
import { SyncFixture, connectedProxy, sidecar } from './testing/sync-fixture.js';
import { settingsTable } from '../../store/settings-table.js';

const WEB = connectedProxy('web-1');

let fixture: SyncFixture;
let settings: Settings;
let timers: ManualTimers;
let tracker: DataplaneSyncTracker;

function results(proxyId = WEB.proxyId): string[] {
  return fixture.ticks(proxyId).map((tick) => tick.result);
}

beforeEach(async () => {
  fixture = await SyncFixture.create();
  settings = new Settings({ table: settingsTable(fixture.db), events: fixture.events });
  timers = new ManualTimers();
  tracker = new DataplaneSyncTracker({
    meshContexts: fixture.meshContexts,
    snapshots: fixture.snapshots,
    history: fixture.history,
    settings,
    timeline: fixture.timeline,
    metrics: fixture.metrics,
    timers,
  });
  await fixture.manager.create(sidecar('backend-1', 'backend', '127.0.0.2'));
});

afterEach(async () => {
  await tracker.close();
  fixture.close();
});

describe('DataplaneSyncTracker', () => {
  it('runs the first generation inside onProxyConnected, before any refresh timer fires', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));

    await tracker.onProxyConnected(WEB);

    expect(results()).toEqual(['changed']);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeDefined();
    expect(tracker.activeProxies()).toEqual(['default.web-1']);
    expect(timers.pending).toEqual([settings.get('xds.dataplaneConfigurationRefreshInterval')]);
  });

  it('misses a Dataplane the cached context predates on the first tick and finds it on a later one', async () => {
    await fixture.meshContexts.get('default'); // another proxy's tick cached the mesh just before
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend'])); // no post-create wait ('none')

    await tracker.onProxyConnected(WEB);
    expect(results()).toEqual(['dataplane-not-found']);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeUndefined();
    // The retry is scheduled as the first tick ends, before onProxyConnected resolves.
    expect(timers.pending).toEqual([1_000]);

    fixture.expireCaches();
    const retry = fixture.nthTick(WEB.proxyId, 2); // its context rebuild may wait for real time (MeshContextCache's pacing)
    timers.fireAll();

    // The next tick is that retry, whatever follows it (its rebuild kicks the mesh's proxies again).
    expect((await retry).result).toBe('changed');
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeDefined();
  });

  it('pushes a change of the cached mesh view to every proxy of the mesh at once, not at their next tick', async () => {
    const WEB_2 = connectedProxy('web-2', 2);
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    await fixture.manager.create(sidecar('web-2', 'web', '127.0.0.3', ['backend']));
    await tracker.onProxyConnected(WEB);
    await tracker.onProxyConnected(WEB_2);
    const endpointsOf = (proxyId: string) => fixture.history.latest(proxyId)!.resources[ENDPOINT_TYPE_URL];

    await fixture.manager.create(sidecar('backend-2', 'backend', '127.0.0.4'));
    fixture.expireCaches();
    const kickedTicksEnded = timers.whenSet(2); // each kicked tick sets its proxy's next timer as it ends
    await fixture.meshContexts.get('default'); // any reader after the TTL: here the UI, say
    await kickedTicksEnded;

    expect(results()).toEqual(['changed', 'changed']);
    expect(results(WEB_2.proxyId)).toEqual(['changed', 'changed']);
    expect(JSON.stringify(endpointsOf(WEB_2.proxyId))).toContain('127.0.0.4');
    // The kicked ticks replaced the scheduled ones: each proxy still waits one full interval.
    expect(timers.pending).toEqual([1_000, 1_000]);
  });

  it('ticks once per refresh interval, and a new interval replaces the pending wait at once', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    await tracker.onProxyConnected(WEB);

    const tickEnded = timers.whenSet(1);
    timers.fireAll();
    await tickEnded;
    settings.update({ 'xds.dataplaneConfigurationRefreshInterval': '250ms' });

    expect(results()).toEqual(['changed', 'skip']);
    expect(timers.pending).toEqual([250]);
  });

  it('on disconnect stops the watchdog and clears the snapshot', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    await tracker.onProxyConnected(WEB);

    tracker.onProxyDisconnected(WEB);

    expect(tracker.activeProxies()).toEqual([]);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeUndefined();
    expect(timers.pending).toEqual([]);
  });

  it('publishes nothing for a proxy that disconnected during its first tick', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));

    const connecting = tracker.onProxyConnected(WEB);
    tracker.onProxyDisconnected(WEB);
    await connecting;

    expect(results()).toEqual([]);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeUndefined();
    expect(timers.pending).toEqual([]);
  });

  it('keeps serving a proxy that reconnected on a new stream when its old stream closes late', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    const oldStream = connectedProxy('web-1', 1);
    const newStream = connectedProxy('web-1', 2);
    await tracker.onProxyConnected(oldStream);
    const published = fixture.snapshots.getSnapshot(WEB.proxyId);

    await tracker.onProxyConnected(newStream);
    tracker.onProxyDisconnected(oldStream);

    expect(results()).toEqual(['changed', 'generated']);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBe(published);
    expect(tracker.activeProxies()).toEqual(['default.web-1']);
    expect(timers.pending).toHaveLength(1);

    tracker.onProxyDisconnected(newStream);
    expect(fixture.snapshots.getSnapshot(WEB.proxyId)).toBeUndefined();
    expect(timers.pending).toEqual([]);
  });

  it('leaves no watchdog, timer or snapshot behind after many proxies came and went', async () => {
    const proxies = Array.from({ length: 20 }, (_, i) => connectedProxy(`web-${i}`, i + 1));
    for (const [i, proxy] of proxies.entries()) {
      await fixture.manager.create(sidecar(proxy.dataplaneKey.name, 'web', `127.0.1.${i}`, ['backend']));
    }

    await Promise.all(proxies.map((proxy) => tracker.onProxyConnected(proxy)));
    expect(tracker.activeProxies()).toHaveLength(20);
    for (const proxy of proxies.filter((_, i) => i % 2 === 0)) tracker.onProxyDisconnected(proxy);
    const ticksEnded = timers.whenSet(10);
    timers.fireAll();
    await ticksEnded;
    expect(proxies.map((proxy) => results(proxy.proxyId).length)).toEqual(proxies.map((_, i) => (i % 2 === 0 ? 1 : 2)));
    for (const proxy of proxies.filter((_, i) => i % 2 === 1)) tracker.onProxyDisconnected(proxy);

    expect(tracker.activeProxies()).toEqual([]);
    expect(timers.pending).toEqual([]);
    expect(fixture.snapshots.nodeIds()).toEqual([]);
  });

  it('on close stops every watchdog, clears their snapshots and ignores later connections', async () => {
    await fixture.manager.create(sidecar('web-1', 'web', '127.0.0.1', ['backend']));
    await fixture.manager.create(sidecar('web-2', 'web', '127.0.0.3', ['backend']));
    await tracker.onProxyConnected(WEB);
    await tracker.onProxyConnected(connectedProxy('web-2', 2));

    await tracker.close();
    await tracker.onProxyConnected(connectedProxy('backend-1', 3));

    expect(tracker.activeProxies()).toEqual([]);
    expect(timers.pending).toEqual([]);
    expect(fixture.snapshots.nodeIds()).toEqual([]);
    expect(results('default.backend-1')).toEqual([]);
  });
});
