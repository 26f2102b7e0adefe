import { describe, expect, it } from 'vitest';
import type { MeshServicesMode } from '../../../../shared/meshservice-types.js';
import type { DataplaneSpec, Resource, TransparentProxying } from '../../../../shared/resources.js';
import { buildMeshContext } from '../../context/build-mesh-context.js';
import { meshServiceOutboundsOf } from './outbounds.js';
import { testDataplane, testMesh, testMeshService } from './test-resources.js';

const ZONE = { 'kuma.io/zone': 'default' };
const backend = testMeshService(
  'm',
  'backend',
  { ports: [{ port: 80, name: 'http' }, { port: 81 }] },
  { labels: { ...ZONE, team: 'a' }, status: { vips: [{ ip: '241.0.0.0' }] }, creationTime: '2026-01-02T00:00:00Z' },
);
const older = testMeshService('m', 'older', { ports: [{ port: 90 }] }, { labels: { ...ZONE, team: 'a' }, status: { vips: [{ ip: '241.0.0.1' }] } });
const otherZone = testMeshService('m', 'remote', { ports: [{ port: 80 }] }, { labels: { 'kuma.io/zone': 'east' }, status: { vips: [{ ip: '241.0.0.2' }] } });
const noVip = testMeshService('m', 'novip', { ports: [{ port: 80 }] }, { labels: ZONE });

function outboundsOf(spec: DataplaneSpec, mode: MeshServicesMode = 'Disabled', meshServices: Resource<'MeshService'>[] = [backend, older, otherZone, noVip]) {
  const dataplane = testDataplane('m', 'client', spec, ZONE);
  const context = buildMeshContext(testMesh('m', { meshServices: { mode } }), [dataplane], {
    destinations: { meshServices, meshExternalServices: [], meshMultiZoneServices: [] },
  });
  return meshServiceOutboundsOf(context, dataplane).map(
    (each) => `${each.address}:${each.port} ${each.meshService.meta.name}/${each.section.name}${each.bindToPort ? '' : ' (no bind)'}`,
  );
}

const inbound = [{ port: 8080, tags: { 'kuma.io/service': 'client' } }];

function explicit(outbound: NonNullable<DataplaneSpec['networking']['outbound']>): DataplaneSpec {
  return { networking: { address: '10.0.0.9', inbound, outbound } };
}

function transparent(transparentProxying: TransparentProxying = {}, inbounds = inbound): DataplaneSpec {
  return { networking: { address: '10.0.0.9', inbound: inbounds, transparentProxying: { redirectPortInbound: 15006, redirectPortOutbound: 15001, ...transparentProxying } } };
}

describe('which MeshService outbounds a proxy gets', () => {
  it('resolves a backendRef by name in its own zone, its section the port number even for a named port', () => {
    const result = outboundsOf(explicit([{ port: 10001, backendRef: { kind: 'MeshService', name: 'backend', port: 80 } }]));
    expect(result).toEqual(['127.0.0.1:10001 backend/80']);
  });

  it('resolves a backendRef by labels to the oldest MeshService carrying them', () => {
    const result = outboundsOf(explicit([{ address: '127.0.0.2', port: 10001, backendRef: { kind: 'MeshService', labels: { team: 'a' }, port: 90 } }]));
    expect(result).toEqual(['127.0.0.2:10001 older/90']);
  });

  it('drops a backendRef to an unknown MeshService, port, another zone or a kind not served yet', () => {
    const result = outboundsOf(
      explicit([
        { port: 10001, backendRef: { kind: 'MeshService', name: 'missing', port: 80 } },
        { port: 10002, backendRef: { kind: 'MeshService', name: 'backend', port: 82 } },
        { port: 10003, backendRef: { kind: 'MeshService', name: 'remote', port: 80 } },
        { port: 10004, backendRef: { kind: 'MeshExternalService', name: 'ext' } },
        { port: 10005, tags: { 'kuma.io/service': 'legacy' } },
      ]),
    );
    expect(result).toEqual([]);
  });

  it.each(['Disabled', 'Everywhere', 'Exclusive'] as const)('gives a transparent proxy every MeshService VIP and port in mode %s, not bound', (mode) => {
    expect(outboundsOf(transparent(), mode)).toEqual([
      '241.0.0.0:80 backend/http (no bind)',
      '241.0.0.0:81 backend/81 (no bind)',
      '241.0.0.1:90 older/90 (no bind)',
      '241.0.0.2:80 remote/80 (no bind)',
    ]);
  });

  it('ignores backendRef outbounds under transparent proxy, as Kuma ignores networking.outbound there', () => {
    const spec = transparent();
    spec.networking.outbound = [{ port: 10001, backendRef: { kind: 'MeshService', name: 'backend', port: 80 } }];
    expect(outboundsOf(spec, 'Disabled', [noVip])).toEqual([]);
  });

  it('in ReachableBackends gives VIP outbounds only to a proxy listing reachableBackends, only those listed', () => {
    expect(outboundsOf(transparent(), 'ReachableBackends')).toEqual([]);
    const listed = transparent({
      reachableBackends: { refs: [{ kind: 'MeshService', name: 'backend', port: 81 }, { kind: 'MeshService', labels: { 'kuma.io/zone': 'east' } }] },
    });
    expect(outboundsOf(listed, 'ReachableBackends')).toEqual(['241.0.0.0:81 backend/81 (no bind)', '241.0.0.2:80 remote/80 (no bind)']);
  });

  it('gives none to a proxy listing only legacy reachableServices', () => {
    expect(outboundsOf(transparent({ reachableServices: ['web'] }), 'Everywhere')).toEqual([]);
  });

  it("leaves out a VIP outbound on one of the proxy's inbound sockets", () => {
    const inbounds = [{ address: '241.0.0.1', port: 90, tags: { 'kuma.io/service': 'older' } }];
    expect(outboundsOf(transparent({}, inbounds), 'Everywhere')).not.toContain('241.0.0.1:90 older/90 (no bind)');
  });
});
