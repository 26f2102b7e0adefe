import { describe, expect, test } from 'vitest';
import { ResourceEncodingError } from '../protocol/encode.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../protocol/type-urls.js';
import type { Snapshot } from './snapshot.js';
import { snapshotFromJson } from './snapshot.js';
import { SnapshotCache } from './snapshot-cache.js';
import { edsCluster, fixtureSnapshot, loadAssignment } from './testing/fixtures.js';

describe('SnapshotCache', () => {
  test('a watch gets the current snapshot at once, then every new one for its node only', () => {
    const cache = new SnapshotCache();
    const first = fixtureSnapshot('v1', { clusters: ['a'] });
    cache.setSnapshot('default.a', first);
    const seen: Snapshot[] = [];
    const unwatch = cache.watch('default.a', (snapshot) => seen.push(snapshot));
    const second = fixtureSnapshot('v2', { clusters: ['a', 'b'] });
    cache.setSnapshot('default.a', second);
    cache.setSnapshot('default.other', fixtureSnapshot('v9', { clusters: ['z'] }));
    unwatch();
    cache.setSnapshot('default.a', fixtureSnapshot('v3', { clusters: ['c'] }));
    expect(seen).toEqual([first, second]);
  });

  test('a watch on a node without a snapshot waits for the first one', () => {
    const cache = new SnapshotCache();
    const seen: string[] = [];
    cache.watch('default.a', (snapshot) => seen.push(snapshot.get(CLUSTER_TYPE_URL)!.version));
    expect(seen).toEqual([]);
    cache.setSnapshot('default.a', fixtureSnapshot('v1', { clusters: ['a'] }));
    expect(seen).toEqual(['v1']);
  });

  test('clearing a snapshot forgets it without telling watchers', () => {
    const cache = new SnapshotCache();
    cache.setSnapshot('default.a', fixtureSnapshot('v1', { clusters: ['a'] }));
    const seen: Snapshot[] = [];
    cache.watch('default.a', (snapshot) => seen.push(snapshot));
    cache.clearSnapshot('default.a');
    expect(cache.getSnapshot('default.a')).toBeUndefined();
    expect(cache.nodeIds()).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  test('refuses a snapshot listing a resource under another type', () => {
    const cache = new SnapshotCache();
    const clusters = fixtureSnapshot('v1', { clusters: ['a'] }).get(CLUSTER_TYPE_URL)!;
    expect(() => cache.setSnapshot('default.a', new Map([[ENDPOINT_TYPE_URL, clusters]]))).toThrow(
      `snapshot for node "default.a": resource "a" listed under ${ENDPOINT_TYPE_URL} is a ${CLUSTER_TYPE_URL}`,
    );
  });
});

describe('snapshotFromJson', () => {
  test('keys resources by name (cluster_name for endpoints) and keeps their JSON', () => {
    const snapshot = snapshotFromJson({
      [CLUSTER_TYPE_URL]: { version: 'c1', resources: [edsCluster('a')] },
      [ENDPOINT_TYPE_URL]: { version: 'e1', resources: [loadAssignment('a', 8080)] },
    });
    expect([...snapshot.get(ENDPOINT_TYPE_URL)!.resources.keys()]).toEqual(['a']);
    expect(snapshot.get(CLUSTER_TYPE_URL)!.resources.get('a')!.json).toEqual(edsCluster('a'));
  });

  test('refuses the same name twice in one type', () => {
    expect(() => snapshotFromJson({ [CLUSTER_TYPE_URL]: { version: 'c1', resources: [edsCluster('a'), edsCluster('a')] } })).toThrow(
      `snapshot version c1 holds two ${CLUSTER_TYPE_URL} resources named "a"`,
    );
  });

  test('refuses a resource its proto rejects', () => {
    expect(() => snapshotFromJson({ [CLUSTER_TYPE_URL]: { version: 'c1', resources: [{ ...edsCluster('a'), lb_policy: 'FASTEST' }] } })).toThrow(
      ResourceEncodingError,
    );
  });
});
