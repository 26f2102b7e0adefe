import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../store/database.js';
import { SNAPSHOTS_KEPT_PER_PROXY, SnapshotHistory } from '../../store/snapshot-history.js';
import type { GeneratedResources } from '../generate/resources.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL, SECRET_TYPE_URL, XDS_TYPE_URLS } from '../protocol/type-urls.js';
import { SnapshotCache } from '../server/snapshot-cache.js';
import { apiListener, edsCluster, loadAssignment, routeConfiguration } from '../server/testing/fixtures.js';
import { eventually } from '../../../../test/support/eventually.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import { EncodedResourceCache } from './encoded-resource-cache.js';
import { SnapshotReconciler } from './reconcile.js';

const PROXY = 'default.web-1';

/** The configuration of a proxyless client of `echo`, whose endpoint listens on `port`. */
function echoResources(port = 8080, extraClusters: string[] = []): GeneratedResources {
  return {
    [SECRET_TYPE_URL]: [],
    [CLUSTER_TYPE_URL]: ['echo', ...extraClusters].map((name) => ({ name, resource: edsCluster(name) })),
    [ENDPOINT_TYPE_URL]: [{ name: 'echo', resource: loadAssignment('echo', port) }],
    [LISTENER_TYPE_URL]: [{ name: 'echo', resource: apiListener('echo', 'echo-route') }],
    [ROUTE_TYPE_URL]: [{ name: 'echo-route', resource: routeConfiguration('echo-route', 'echo') }],
  };
}

let dir: string;
let db: Db;
let history: SnapshotHistory;
let snapshots: SnapshotCache;
let reconciler: SnapshotReconciler;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'meshdesk-'));
  db = openDatabase(path.join(dir, 'meshdesk.db'));
  history = new SnapshotHistory(db);
  snapshots = new SnapshotCache();
  reconciler = new SnapshotReconciler({ snapshots, history });
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('SnapshotReconciler', () => {
  it('publishes every type, each encoded, versioned by 16 hex characters of its content hash', () => {
    const { versions, changedTypes } = reconciler.reconcile(PROXY, echoResources());
    const snapshot = snapshots.getSnapshot(PROXY)!;

    expect(changedTypes).toEqual([...XDS_TYPE_URLS]);
    expect([...snapshot.keys()]).toEqual([...XDS_TYPE_URLS]);
    for (const typeUrl of XDS_TYPE_URLS) {
      expect(versions[typeUrl]).toMatch(/^[0-9a-f]{16}$/);
      expect(snapshot.get(typeUrl)!.version).toBe(versions[typeUrl]);
    }
    const cluster = snapshot.get(CLUSTER_TYPE_URL)!.resources.get('echo')!;
    expect(cluster.any.type_url).toBe(CLUSTER_TYPE_URL);
    expect(cluster.any.value.length).toBeGreaterThan(0);
    expect(cluster.json).toEqual(edsCluster('echo'));
  });

  it('gives the same content the same versions in another run, whatever the generation order', () => {
    const first = reconciler.reconcile(PROXY, echoResources(8080, ['alpha', 'zulu']));
    const reordered = echoResources(8080, ['zulu', 'alpha']);

    const otherRun = new SnapshotReconciler({ snapshots: new SnapshotCache(), history }).reconcile(PROXY, reordered);

    expect(otherRun.versions).toEqual(first.versions);
  });

  it('versions an empty type too, so that "nothing" can be sent and acknowledged', () => {
    const empty = { ...echoResources(), [ROUTE_TYPE_URL]: [] };

    const { versions } = reconciler.reconcile(PROXY, empty);

    expect(snapshots.getSnapshot(PROXY)!.get(ROUTE_TYPE_URL)!.resources.size).toBe(0);
    expect(versions[ROUTE_TYPE_URL]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('sets nothing and records nothing when every version is the one in place', () => {
    reconciler.reconcile(PROXY, echoResources());
    const published: unknown[] = [];
    snapshots.watch(PROXY, (snapshot) => published.push(snapshot));
    const inPlace = snapshots.getSnapshot(PROXY);

    const again = reconciler.reconcile(PROXY, echoResources());

    expect(again.changedTypes).toEqual([]);
    expect(snapshots.getSnapshot(PROXY)).toBe(inPlace);
    expect(published).toEqual([inPlace]); // only the watch's initial delivery
    expect(history.list(PROXY)).toHaveLength(1);
  });

  it('reports only the types whose content changed, and records the snapshot with them', () => {
    const before = reconciler.reconcile(PROXY, echoResources(8080));

    const after = reconciler.reconcile(PROXY, echoResources(9090));

    expect(after.changedTypes).toEqual([ENDPOINT_TYPE_URL]);
    expect(after.versions[ENDPOINT_TYPE_URL]).not.toBe(before.versions[ENDPOINT_TYPE_URL]);
    expect(after.versions[CLUSTER_TYPE_URL]).toBe(before.versions[CLUSTER_TYPE_URL]);
    const latest = history.latest(PROXY)!;
    expect(latest.changedTypes).toEqual([ENDPOINT_TYPE_URL]);
    expect(latest.versions).toEqual(after.versions);
    expect(latest.resources).toEqual(echoResources(9090));
  });

  it('encodes again only the types whose resources are not the very objects in place', () => {
    const encodedTypes: string[] = [];
    const counting = new (class extends EncodedResourceCache {
      override encode(typeUrl: string, resource: ProtoJson) {
        encodedTypes.push(typeUrl);
        return super.encode(typeUrl, resource);
      }
    })();
    const counted = new SnapshotReconciler({ snapshots, history, encoded: counting });
    const before = echoResources(8080);
    counted.reconcile(PROXY, before);
    encodedTypes.length = 0;

    const after = counted.reconcile(PROXY, { ...before, [ENDPOINT_TYPE_URL]: echoResources(9090)[ENDPOINT_TYPE_URL] });

    expect(after.changedTypes).toEqual([ENDPOINT_TYPE_URL]);
    expect(encodedTypes).toEqual([ENDPOINT_TYPE_URL]);
  });

  // Issue 27: one resource that did not encode stopped every update of the proxy.
  it('withholds a resource that does not encode, keeping its last sent form, and publishes the rest', () => {
    reconciler.reconcile(PROXY, echoResources());
    const inPlace = snapshots.getSnapshot(PROXY)!;
    const broken = {
      ...echoResources(9090),
      [CLUSTER_TYPE_URL]: [
        { name: 'echo', resource: { ...edsCluster('echo'), lb_polcy: 'ROUND_ROBIN' } },
        { name: 'new', resource: { ...edsCluster('new'), lb_polcy: 'ROUND_ROBIN' } },
      ],
    };

    const { changedTypes, withheld } = reconciler.reconcile(PROXY, broken);

    expect(withheld).toEqual([
      { typeUrl: CLUSTER_TYPE_URL, name: 'echo', reason: expect.stringMatching(/^cannot encode cds resource "echo": lb_polcy: unknown field/), kept: true },
      { typeUrl: CLUSTER_TYPE_URL, name: 'new', reason: expect.stringMatching(/^cannot encode cds resource "new": lb_polcy/), kept: false },
    ]);
    // The new endpoint is sent; the cluster stays as it was sent, the new one is left out.
    expect(changedTypes).toEqual([ENDPOINT_TYPE_URL]);
    const published = snapshots.getSnapshot(PROXY)!;
    expect(published.get(ENDPOINT_TYPE_URL)!.resources.get('echo')!.json).toEqual(loadAssignment('echo', 9090));
    expect(published.get(CLUSTER_TYPE_URL)).toEqual(inPlace.get(CLUSTER_TYPE_URL));
    // The history holds what was sent, not what was generated.
    expect(history.list(PROXY)).toHaveLength(2);
    expect(history.latest(PROXY)!.resources[CLUSTER_TYPE_URL]).toEqual([{ name: 'echo', resource: edsCluster('echo') }]);

    // Once it encodes again, it is sent, and nothing is withheld.
    const repaired = reconciler.reconcile(PROXY, echoResources(9090, ['new']));
    expect(repaired.withheld).toEqual([]);
    expect(repaired.changedTypes).toEqual([CLUSTER_TYPE_URL]);
  });

  it('refuses two resources of one type under one name', () => {
    const cluster = { name: 'echo', resource: edsCluster('echo') };
    const twice = { ...echoResources(), [CLUSTER_TYPE_URL]: [cluster, cluster] };

    expect(() => reconciler.reconcile(PROXY, twice)).toThrow('proxy "default.web-1": two cds resources are named "echo"');
  });

  it('refuses two resources under one name even when each is the very object in place', () => {
    const inPlace = echoResources(8080, ['other']);
    reconciler.reconcile(PROXY, inPlace);
    const echo = inPlace[CLUSTER_TYPE_URL][0]!;

    expect(() => reconciler.reconcile(PROXY, { ...inPlace, [CLUSTER_TYPE_URL]: [echo, echo] })).toThrow('two cds resources are named "echo"');
  });

  it(`keeps the history of a proxy at ${SNAPSHOTS_KEPT_PER_PROXY} snapshots`, () => {
    for (let port = 1; port <= SNAPSHOTS_KEPT_PER_PROXY + 5; port++) reconciler.reconcile(PROXY, echoResources(port));

    expect(history.list(PROXY)).toHaveLength(SNAPSHOTS_KEPT_PER_PROXY);
    expect(history.latest(PROXY)!.resources).toEqual(echoResources(SNAPSHOTS_KEPT_PER_PROXY + 5));
  });

  it('forgets the snapshot on clear, so the next reconcile publishes every type again', () => {
    reconciler.reconcile(PROXY, echoResources());

    reconciler.clear(PROXY);

    expect(snapshots.getSnapshot(PROXY)).toBeUndefined();
    expect(reconciler.reconcile(PROXY, echoResources()).changedTypes).toEqual([...XDS_TYPE_URLS]);
  });
});

describe('SnapshotReconciler shared by many proxies', () => {
  it('gives two proxies the identical encoded endpoints, and new ones once an endpoint changed', () => {
    reconciler.reconcile('default.web-1', echoResources(8080));
    reconciler.reconcile('default.web-2', echoResources(8080));
    const endpoints = (proxyId: string) => snapshots.getSnapshot(proxyId)!.get(ENDPOINT_TYPE_URL)!.resources.get('echo')!.any;

    expect(endpoints('default.web-2')).toBe(endpoints('default.web-1'));

    const shared = endpoints('default.web-1');
    reconciler.reconcile('default.web-1', echoResources(9090));

    expect(endpoints('default.web-1')).not.toBe(shared);
    expect(endpoints('default.web-1').value).not.toEqual(shared.value);
    expect(endpoints('default.web-2')).toBe(shared);
  });
});

describe('SnapshotReconciler on a full disk', () => {
  it('publishes every config while the history cannot be written, and counts what the history lost', async () => {
    // A real SQLITE_FULL: the file may not grow past the pages it has.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

    for (let port = 8080; port < 8083; port++) {
      reconciler.reconcile(PROXY, echoResources(port, ['x'.repeat(5_000)]));
      await new Promise((resolve) => setImmediate(resolve)); // the history's flush runs, and fails
      expect(snapshots.getSnapshot(PROXY)!.get(ENDPOINT_TYPE_URL)!.resources.get('echo')!.json).toEqual(loadAssignment('echo', port));
    }

    // Each is dropped by the first attempt after it (retries back off): all three, in the end.
    await eventually(() => expect(history.writeStatus()).toMatchObject({ lostSnapshots: 3, pendingSnapshots: 0, failing: true, lastFailure: { kind: 'disk-full' } }));
  });
});
