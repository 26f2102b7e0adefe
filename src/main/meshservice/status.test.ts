import { describe, expect, it } from 'vitest';
import type { DataplaneResource, Resource } from '../../shared/resources.js';
import { hostnameStatuses, meshMultiZoneServiceStatus, meshServiceStatus } from './status.js';

function resource<T extends Resource['type']>(type: T, name: string, spec: unknown, labels: Record<string, string> = {}, creationTime = '2026-01-01T00:00:00.000Z', mesh = 'default'): Resource<T> {
  return { type, meta: { mesh, name, labels, version: 1, creationTime, modificationTime: creationTime }, spec } as Resource<T>;
}

const generator = (name: string, template: string, labels: Record<string, string> = {}) =>
  resource('HostnameGenerator', name, { template, selector: { meshService: { matchLabels: { 'kuma.io/origin': 'zone' } } } }, labels, '2026-01-01T00:00:00.000Z', '');

const dataplane = (name: string, inbounds: object[]): DataplaneResource => resource('Dataplane', name, { networking: { address: '10.0.0.1', inbound: inbounds } }) as DataplaneResource;

describe('hostnameStatuses', () => {
  it('names each selected resource, records a collision for the later one and a template error', () => {
    const zoneGenerator = generator('by-display-name', '{{ .DisplayName }}.svc.mesh.local', { 'kuma.io/origin': 'zone' });
    const same = generator('same-for-all', 'everything.mesh');
    const broken = generator('broken', '{{ label "team" }}.mesh');
    const first = resource('MeshService', 'a', {}, { 'kuma.io/origin': 'zone' }, '2026-01-01T00:00:01.000Z');
    const second = resource('MeshService', 'b', {}, { 'kuma.io/origin': 'zone' }, '2026-01-01T00:00:02.000Z');
    const unselected = resource('MeshService', 'c', {}, { 'kuma.io/origin': 'global' });
    const statuses = hostnameStatuses('zone-1', [same, broken, zoneGenerator], [second, unselected, first]);
    expect(statuses.get(first)!.addresses.map(({ hostname }) => hostname)).toEqual(['a.svc.mesh.local', 'everything.mesh']);
    expect(statuses.get(second)!.addresses.map(({ hostname }) => hostname)).toEqual(['b.svc.mesh.local']);
    expect(statuses.get(second)!.hostnameGenerators).toEqual([
      {
        hostnameGeneratorRef: { coreName: 'broken' },
        conditions: [{ type: 'Generated', status: 'False', reason: 'TemplateError', message: expect.stringContaining('label team not found') }],
      },
      { hostnameGeneratorRef: { coreName: 'by-display-name' }, conditions: [{ type: 'Generated', status: 'True', reason: 'Generated', message: '' }] },
      { hostnameGeneratorRef: { coreName: 'same-for-all' }, conditions: [{ type: 'Generated', status: 'False', reason: 'Collision', message: 'Hostname collision with MeshService: b' }] },
    ]);
    expect(statuses.get(unselected)).toEqual({ addresses: [], hostnameGenerators: [] });
  });

  it('lets the same hostname exist once per mesh', () => {
    const same = generator('same', 'x.mesh');
    const inDefault = resource('MeshService', 'a', {}, { 'kuma.io/origin': 'zone' });
    const inOther = resource('MeshService', 'a', {}, { 'kuma.io/origin': 'zone' }, undefined, 'other');
    const statuses = hostnameStatuses('zone-1', [same], [inDefault, inOther]);
    expect(statuses.get(inOther)!.addresses).toHaveLength(1);
  });
});

describe('meshServiceStatus', () => {
  const spec = { selector: { dataplaneTags: { app: 'web' } }, ports: [{ port: 80, targetPort: 8080 }, { port: 81, targetPort: 'admin' }] };
  it('counts selected, connected and healthy proxies, lists every service tag as identity, and is Available with a healthy one', () => {
    const healthy = dataplane('web-1', [{ port: 8080, tags: { 'kuma.io/service': 'web', app: 'web' } }, { port: 9000, name: 'admin', tags: { 'kuma.io/service': 'web-admin' } }]);
    const missingPort = dataplane('web-2', [{ port: 8080, tags: { 'kuma.io/service': 'web', app: 'web' } }]);
    const status = meshServiceStatus({
      spec,
      status: undefined,
      dataplanes: [healthy, missingPort],
      proxyFacts: (each) => ({ online: each === healthy, certificateIssued: false }),
      mtlsEnabled: false,
    });
    expect(status).toEqual({
      identities: [
        { type: 'ServiceTag', value: 'web' },
        { type: 'ServiceTag', value: 'web-admin' },
      ],
      state: 'Available',
      tls: { status: 'NotReady' },
      dataplaneProxies: { connected: 1, healthy: 1, total: 2 },
    });
  });

  it('is TLS Ready once every proxy holds a certificate, and stays Ready', () => {
    const one = dataplane('web-1', [{ port: 8080, state: 'NotReady', tags: { app: 'web' } }]);
    const input = { spec, dataplanes: [one], mtlsEnabled: true };
    expect(meshServiceStatus({ ...input, status: undefined, proxyFacts: () => ({ online: false, certificateIssued: false }) })).toMatchObject({
      state: 'Unavailable',
      tls: { status: 'NotReady' },
      dataplaneProxies: { total: 1 },
    });
    expect(meshServiceStatus({ ...input, status: undefined, proxyFacts: () => ({ online: true, certificateIssued: true }) }).tls).toEqual({ status: 'Ready' });
    expect(meshServiceStatus({ ...input, status: { tls: { status: 'Ready' } }, proxyFacts: () => ({ online: false, certificateIssued: false }) }).tls).toEqual({ status: 'Ready' });
  });
});

describe('meshMultiZoneServiceStatus', () => {
  it('lists the MeshServices its labels select, with the MeshServicesMatched condition', () => {
    const redis = resource('MeshService', 'redis', {}, { 'kuma.io/display-name': 'redis', 'kuma.io/zone': 'default', app: 'redis' });
    expect(meshMultiZoneServiceStatus({ app: 'redis' }, [redis, resource('MeshService', 'web', {}, { app: 'web' })])).toEqual({
      meshServices: [{ name: 'redis', namespace: '', zone: 'default', mesh: 'default' }],
      condition: { type: 'MeshServicesMatched', status: 'True', reason: 'MatchesFound', message: 'Matched 1 MeshService(s)' },
    });
    expect(meshMultiZoneServiceStatus({ app: 'none' }, [redis]).condition).toEqual({
      type: 'MeshServicesMatched',
      status: 'False',
      reason: 'NoMatchesFound',
      message: 'Selector does not match any MeshService in this zone',
    });
  });
});
