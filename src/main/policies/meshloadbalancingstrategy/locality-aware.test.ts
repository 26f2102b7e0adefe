import { describe, expect, it } from 'vitest';
import type { DataplaneResource } from '../../../shared/resources.js';
import { buildMeshContext } from '../../xds/context/build-mesh-context.js';
import { generateProxy } from '../../xds/generate/profile.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { ENDPOINT_TYPE_URL } from '../../xds/protocol/type-urls.js';
import { dataplaneResource, meshResource, policyResource } from '../core/testing/resources.js';
import { localityAwareAssignment, proxyZone, type LocalitySide } from './locality-aware.js';

// The cases Kuma's goldens leave out: meshdesk's zone-less proxies and endpoints, and `disabled`.

function endpoint(address: string, tags: Record<string, string> = {}): ProtoJson {
  return {
    endpoint: { address: { socket_address: { address, port_value: 8080 } } },
    load_balancing_weight: 1,
    ...(Object.keys(tags).length > 0 && { metadata: { filter_metadata: { 'envoy.lb': tags, 'envoy.transport_socket_match': tags } } }),
  };
}

/** meshdesk's Envoy assignment: every endpoint in one group without a locality. */
const assignment = (...lbEndpoints: ProtoJson[]): ProtoJson => ({ cluster_name: 'backend', endpoints: [{ lb_endpoints: lbEndpoints }] });

const side = (zone: string, tags: Record<string, string[]> = {}): LocalitySide => ({ zone, tags: new Map(Object.entries(tags)), labels: {} });

const summary = (cla: ProtoJson) =>
  (cla['endpoints'] as ProtoJson[]).map((group) => ({
    locality: group['locality'],
    priority: group['priority'] ?? 0,
    weight: group['load_balancing_weight'],
    addresses: (group['lb_endpoints'] as { endpoint: { address: { socket_address: { address: string } } } }[]).map(
      ({ endpoint }) => endpoint.address.socket_address.address,
    ),
  }));

describe('locality-aware assignments', () => {
  it("a proxy's zone is its inbounds' kuma.io/zone tag, '' without one", () => {
    expect(proxyZone(new Map([['kuma.io/zone', ['zone-a', 'zone-b']]]))).toBe('zone-a');
    expect(proxyZone(new Map())).toBe('');
  });

  it('leaves zone-less endpoints where they are when no policy field asks for more', () => {
    const cla = assignment(endpoint('10.0.0.2'), endpoint('10.0.0.1'));
    expect(summary(localityAwareAssignment(cla, { loadBalancer: { type: 'Random' } }, side('')))).toEqual([
      { locality: undefined, priority: 0, weight: undefined, addresses: ['10.0.0.1', '10.0.0.2'] },
    ]);
  });

  it('puts other zones at priority 1, or 0 when locality awareness is disabled', () => {
    const cla = assignment(endpoint('10.0.0.1', { 'kuma.io/zone': 'east' }), endpoint('10.0.0.2', { 'kuma.io/zone': 'west' }));
    expect(summary(localityAwareAssignment(cla, {}, side('east'))).map(({ priority }) => priority)).toEqual([0, 1]);
    expect(summary(localityAwareAssignment(cla, { localityAwareness: { disabled: true } }, side('east'))).map(({ priority }) => priority)).toEqual([0, 0]);
  });

  it('applies affinity tags on a zone-less proxy to zone-less endpoints, as a single-zone Kuma does', () => {
    const cla = assignment(endpoint('10.0.0.1', { 'k8s.io/node': 'n1' }), endpoint('10.0.0.2', { 'k8s.io/node': 'n2' }));
    const conf = { localityAwareness: { localZone: { affinityTags: [{ key: 'k8s.io/node' }] } } };
    expect(summary(localityAwareAssignment(cla, conf, side('', { 'k8s.io/node': ['n1'] })))).toEqual([
      { locality: { zone: '' }, priority: 0, weight: 1, addresses: ['10.0.0.2'] },
      { locality: { zone: '', sub_zone: 'k8s.io/node=n1' }, priority: 0, weight: 9, addresses: ['10.0.0.1'] },
    ]);
  });

  it('gives failover entries their position + 1, skips those from other zones, drops unlisted zones', () => {
    const cla = assignment(
      endpoint('10.0.0.1', { 'kuma.io/zone': 'east' }),
      endpoint('10.0.0.2', { 'kuma.io/zone': 'west' }),
      endpoint('10.0.0.3', { 'kuma.io/zone': 'north' }),
      endpoint('10.0.0.4', { 'kuma.io/zone': 'south' }),
    );
    const conf = {
      localityAwareness: {
        crossZone: {
          failover: [
            { from: { zones: ['west'] }, to: { type: 'Any' as const } },
            { to: { type: 'Only' as const, zones: ['north'] } },
            { to: { type: 'AnyExcept' as const, zones: ['south'] } },
          ],
          failoverThreshold: { percentage: 50 },
        },
      },
    };
    const result = localityAwareAssignment(cla, conf, side('east'));
    expect(summary(result).map(({ locality, priority }) => `${(locality as { zone: string }).zone}:${priority}`)).toEqual(['east:0', 'north:2', 'west:3']);
    expect(result['policy']).toEqual({ overprovisioning_factor: 200 });
  });
});

describe('locality-aware assignments shared between proxies', () => {
  const backend = (name: string, version: string, address: string) =>
    dataplaneResource(name, [{ port: 9000, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http', version } }], { address });
  const client = (name: string, version: string): DataplaneResource => {
    const dataplane = dataplaneResource(name, [{ port: 8080, tags: { 'kuma.io/service': 'web', version } }]);
    return { ...dataplane, spec: { networking: { ...dataplane.spec.networking, outbound: [{ port: 10001, tags: { 'kuma.io/service': 'backend' } }] } } };
  };
  const policy = policyResource('MeshLoadBalancingStrategy', 'affinity', {
    targetRef: { kind: 'Mesh' },
    to: [{ targetRef: { kind: 'Mesh' }, default: { localityAwareness: { localZone: { affinityTags: [{ key: 'version' }] } } } }],
  });
  const [v1, v2] = [client('web-1', 'v1'), client('web-2', 'v2')];
  const context = buildMeshContext(meshResource(), [v1, v2, backend('backend-1', 'v1', '10.0.1.1'), backend('backend-2', 'v2', '10.0.1.2')], { policies: [policy] });
  const preferred = (dataplane: DataplaneResource) => {
    const { resources } = generateProxy(context, { id: `default.${dataplane.meta.name}`, dataplane, kind: 'envoy' });
    const cla = resources[ENDPOINT_TYPE_URL].find(({ name }) => name === 'backend')!.resource;
    return summary(cla).find(({ locality }) => (locality as { sub_zone?: string } | undefined)?.sub_zone !== undefined);
  };

  it("prefers each proxy's own affinity tag values, read from its inbound tags", () => {
    expect(preferred(v1)).toMatchObject({ locality: { sub_zone: 'version=v1' }, addresses: ['10.0.1.1'] });
    expect(preferred(v2)).toMatchObject({ locality: { sub_zone: 'version=v2' }, addresses: ['10.0.1.2'] });
  });
});
