import { describe, expect, it } from 'vitest';
import { ResourceEncodingError, encodeResource } from '../protocol/encode.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL } from '../protocol/type-urls.js';
import { edsCluster, loadAssignment } from '../server/testing/fixtures.js';
import { EncodedResourceCache } from './encoded-resource-cache.js';

describe('EncodedResourceCache', () => {
  it('gives equal resources from separate objects the identical Any, with the bytes encodeResource gives', () => {
    const cache = new EncodedResourceCache();
    const first = cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 8080));
    const second = cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 8080));

    expect(second).toBe(first);
    expect(first).toEqual(encodeResource(ENDPOINT_TYPE_URL, loadAssignment('echo', 8080)));
    expect(cache.size).toBe(1);
  });

  it('encodes a resource whose content changed anew', () => {
    const cache = new EncodedResourceCache();
    const before = cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 8080));
    const after = cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 9090));

    expect(after).not.toBe(before);
    expect(after).toEqual(encodeResource(ENDPOINT_TYPE_URL, loadAssignment('echo', 9090)));
  });

  it('keeps one entry per type URL, so one JSON under two types never shares an Any', () => {
    const cache = new EncodedResourceCache();
    const cluster = edsCluster('echo');

    expect(cache.encode(CLUSTER_TYPE_URL, cluster).type_url).toBe(CLUSTER_TYPE_URL);
    expect(() => cache.encode(ENDPOINT_TYPE_URL, cluster)).toThrow(ResourceEncodingError);
  });

  it('encodes an edit of an encoded resource from its parts, without reading the parts it shares again', () => {
    const cache = new EncodedResourceCache();
    let reads = 0;
    const edsConfig = { resource_api_version: 'V3' } as Record<string, unknown>;
    Object.defineProperty(edsConfig, 'ads', { enumerable: true, get: () => (reads++, {}) });
    const original = { ...edsCluster('echo'), eds_cluster_config: { eds_config: edsConfig } };
    cache.encode(CLUSTER_TYPE_URL, original);
    const readsByFirstEncode = reads;

    const edited = cache.encode(CLUSTER_TYPE_URL, { ...original, connect_timeout: '7s' });

    expect(reads).toBe(readsByFirstEncode);
    const plain = { ...original, eds_cluster_config: { eds_config: { resource_api_version: 'V3', ads: {} } }, connect_timeout: '7s' };
    expect(edited).toEqual(encodeResource(CLUSTER_TYPE_URL, plain));
  });

  it('gives equal content one Any, whether encoded from shared parts or built anew', () => {
    const cache = new EncodedResourceCache();
    const original = edsCluster('echo');
    cache.encode(CLUSTER_TYPE_URL, original);

    const edited = cache.encode(CLUSTER_TYPE_URL, { ...original, connect_timeout: '7s' });

    expect(cache.encode(CLUSTER_TYPE_URL, { ...edsCluster('echo'), connect_timeout: '7s' })).toBe(edited);
    expect(cache.encode(CLUSTER_TYPE_URL, { ...original, connect_timeout: '7s' })).toBe(edited);
    expect(cache.size).toBe(2);
  });

  it('caches nothing for a resource that does not encode, and throws again on the next try', () => {
    const cache = new EncodedResourceCache();
    const broken = { ...edsCluster('echo'), lb_polcy: 'ROUND_ROBIN' };

    expect(() => cache.encode(CLUSTER_TYPE_URL, broken)).toThrow(/lb_polcy: unknown field/);
    expect(() => cache.encode(CLUSTER_TYPE_URL, broken)).toThrow(/lb_polcy: unknown field/);
    expect(cache.size).toBe(0);
  });

  it('stays bounded: when full, the older half goes, and a resource still in use is kept', () => {
    const cache = new EncodedResourceCache({ capacity: 4 });
    const inUse = cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 1));
    for (let port = 2; port <= 20; port++) {
      cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', port));
      expect(cache.encode(ENDPOINT_TYPE_URL, loadAssignment('echo', 1))).toBe(inUse); // used every round
    }
    expect(cache.size).toBeLessThanOrEqual(4);
  });
});
