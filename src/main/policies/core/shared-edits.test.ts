import { describe, expect, it } from 'vitest';
import { CLUSTER_TYPE_URL, XDS_TYPE_URLS } from '../../xds/protocol/type-urls.js';
import type { GeneratedResources } from '../../xds/generate/resources.js';
import { EnvoyResources } from './envoy-resources.js';
import { keyOf, putEdited } from './shared-edits.js';

const origin = { type: 'MeshTimeout', mesh: 'default', name: 'all', item: 'spec.to[0]' } as const;

function generated(): GeneratedResources {
  const cluster = Object.freeze({ name: 'web', connect_timeout: '5s' });
  return { ...Object.fromEntries(XDS_TYPE_URLS.map((typeUrl) => [typeUrl, []])), [CLUSTER_TYPE_URL]: [{ name: 'web', resource: cluster }] } as never;
}

describe('putEdited', () => {
  it('edits a shared resource once per key: proxies with equal rules get the same object, each with its attributions', () => {
    const shared = generated();
    const [first, second, other] = [new EnvoyResources(shared), new EnvoyResources(shared), new EnvoyResources(shared)];
    let edits = 0;
    const edit = (timeout: string) => (draft: Record<string, unknown>) => {
      edits += 1;
      draft.connect_timeout = timeout;
      return [{ path: 'connect_timeout', origins: [origin] }];
    };
    putEdited(first, CLUSTER_TYPE_URL, 'web', ['test', keyOf({ timeout: '1s' })], edit('1s'));
    putEdited(second, CLUSTER_TYPE_URL, 'web', ['test', keyOf({ timeout: '1s' })], edit('1s'));
    putEdited(other, CLUSTER_TYPE_URL, 'web', ['test', keyOf({ timeout: '2s' })], edit('2s'));

    expect(edits).toBe(2);
    expect(second.get(CLUSTER_TYPE_URL, 'web')).toBe(first.get(CLUSTER_TYPE_URL, 'web'));
    expect(Object.isFrozen(first.get(CLUSTER_TYPE_URL, 'web'))).toBe(true);
    expect(other.get(CLUSTER_TYPE_URL, 'web')).toEqual({ name: 'web', connect_timeout: '2s' });
    expect(shared[CLUSTER_TYPE_URL][0]!.resource).toEqual({ name: 'web', connect_timeout: '5s' });
    expect(second.attributions()).toEqual([{ typeUrl: CLUSTER_TYPE_URL, resource: 'web', path: 'connect_timeout', origins: [origin] }]);
  });

  it('keeps the parts an edit left alone as the very objects of the resource, and changes nothing shared', () => {
    const circuitBreakers = Object.freeze({ thresholds: Object.freeze([Object.freeze({ max_connections: 10 })]) });
    const healthCheck = Object.freeze({ timeout: '1s', interval: '5s', tcp_health_check: Object.freeze({}) });
    const cluster = Object.freeze({ name: 'web', circuit_breakers: circuitBreakers, health_checks: Object.freeze([healthCheck]) });
    const shared = { ...generated(), [CLUSTER_TYPE_URL]: [{ name: 'web', resource: cluster }] };
    const resources = new EnvoyResources(shared);
    const conf = { path: '/health' };
    putEdited(resources, CLUSTER_TYPE_URL, 'web', ['test health check'], (draft) => {
      (draft.health_checks as unknown[]).push({ timeout: '1s', interval: '5s', http_health_check: conf });
      return [{ path: 'health_checks[1]', origins: [origin] }];
    });

    const edited = resources.get(CLUSTER_TYPE_URL, 'web')!;
    expect(edited.circuit_breakers).toBe(circuitBreakers);
    expect((edited.health_checks as unknown[])[0]).toBe(healthCheck);
    expect((edited.health_checks as Record<string, unknown>[])[1]!.http_health_check).toBe(conf);
    expect(cluster.health_checks).toEqual([healthCheck]);
    expect(conf).toEqual({ path: '/health' });
  });

  it('keeps values that are not plain data, in the resource and in what the edit sets, by reference', () => {
    class ProxyValue {
      constructor(readonly name: string) {}
    }
    const tags = new ProxyValue('tags');
    const cluster = Object.freeze({ name: 'web', metadata: Object.freeze({ tags }), payload: new Uint8Array([1, 2]) });
    const resources = new EnvoyResources({ ...generated(), [CLUSTER_TYPE_URL]: [{ name: 'web', resource: cluster }] });
    const zone = new ProxyValue('zone');
    putEdited(resources, CLUSTER_TYPE_URL, 'web', ['test'], (draft) => {
      draft.zone = { value: zone };
      return [{ path: 'zone', origins: [origin] }];
    });

    const edited = resources.get(CLUSTER_TYPE_URL, 'web') as typeof cluster & { zone: { value: ProxyValue } };
    expect(edited.metadata.tags).toBe(tags);
    expect(edited.payload).toBe(cluster.payload);
    expect(edited.zone.value).toBe(zone);
  });

  it('leaves the resource as it is when the edit changes nothing', () => {
    const shared = generated();
    const resources = new EnvoyResources(shared);
    putEdited(resources, CLUSTER_TYPE_URL, 'web', ['test'], () => undefined);
    expect(resources.get(CLUSTER_TYPE_URL, 'web')).toBe(shared[CLUSTER_TYPE_URL][0]!.resource);
  });
});
