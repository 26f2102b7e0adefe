import { describe, expect, it } from 'vitest';
import type { DataplaneResource, Resource } from '../../shared/resources.js';
import { generateMeshServices, type MeshServiceResource } from './generator.js';

const NOW = new Date('2026-01-01T12:00:00.000Z');
const HOUR = 3_600_000;

function dataplane(name: string, inbounds: object[], creationTime = '2026-01-01T00:00:00.000Z'): DataplaneResource {
  return { type: 'Dataplane', meta: { mesh: 'default', name, labels: {}, version: 1, creationTime, modificationTime: creationTime }, spec: { networking: { address: '10.0.0.1', inbound: inbounds } } } as DataplaneResource;
}

function generated(name: string, ports: object[], extraLabels: Record<string, string> = {}): MeshServiceResource {
  return {
    type: 'MeshService',
    meta: {
      mesh: 'default',
      name,
      version: 3,
      creationTime: 't',
      modificationTime: 't',
      labels: {
        'kuma.io/mesh': 'default',
        'kuma.io/display-name': name,
        'kuma.io/managed-by': 'meshservice-generator',
        'kuma.io/env': 'universal',
        'kuma.io/zone': 'z',
        'kuma.io/origin': 'zone',
        ...extraLabels,
      },
    },
    spec: { selector: { dataplaneTags: { 'kuma.io/service': name } }, ports },
  } as Resource<'MeshService'>;
}

const run = (dataplanes: DataplaneResource[], meshServices: MeshServiceResource[], enabled = true) =>
  generateMeshServices({ mesh: 'default', zone: 'z', enabled, dataplanes, meshServices, now: NOW, deletionGracePeriodMs: HOUR });

describe('generateMeshServices', () => {
  it('creates one MeshService per service, ports from the inbounds (port and targetPort the inbound port), protocol from the inbound first', () => {
    const { writes } = run([dataplane('dp', [{ port: 80, servicePort: 8080, protocol: 'HTTP', tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'grpc' } }, { port: 81, tags: {} }])], []);
    expect(writes).toEqual([
      {
        kind: 'create',
        reason: 'created',
        input: {
          type: 'MeshService',
          mesh: 'default',
          name: 'web',
          labels: generated('web', []).meta.labels,
          spec: { selector: { dataplaneTags: { 'kuma.io/service': 'web' } }, ports: [{ name: '80', port: 80, targetPort: 80, appProtocol: 'http' }] },
        },
      },
    ]);
  });

  it('lets the oldest Dataplane decide the ports of a new MeshService and reports the others as conflicting', () => {
    const { writes, conflicts } = run(
      [dataplane('young', [{ port: 81, tags: { 'kuma.io/service': 'web' } }], '2026-01-01T00:00:02.000Z'), dataplane('old', [{ port: 80, tags: { 'kuma.io/service': 'web' } }], '2026-01-01T00:00:01.000Z')],
      [],
    );
    expect(writes[0]!.kind === 'create' && writes[0]!.input.spec.ports).toEqual([{ name: '80', port: 80, targetPort: 80, appProtocol: 'tcp' }]);
    expect(conflicts).toEqual(new Map([['web', ['young']]]));
  });

  it('starts the grace period, keeps it until it ends, then deletes; a hand-made MeshService is never touched', () => {
    const handMade = { ...generated('mine', []), meta: { ...generated('mine', []).meta, labels: {} } };
    const started = run([], [generated('web', []), handMade]);
    expect(started.writes).toEqual([expect.objectContaining({ kind: 'update', reason: 'deletion grace period started' })]);
    expect(started.writes[0]!.kind === 'update' && started.writes[0]!.input.labels['kuma.io/deletion-grace-period-started-at']).toBe(NOW.toISOString());
    expect(started.nextDeadline).toBe(NOW.getTime() + HOUR);
    const waiting = run([], [generated('web', [], { 'kuma.io/deletion-grace-period-started-at': new Date(NOW.getTime() - HOUR / 2).toISOString() })]);
    expect(waiting.writes).toEqual([]);
    const over = run([], [generated('web', [], { 'kuma.io/deletion-grace-period-started-at': new Date(NOW.getTime() - 2 * HOUR).toISOString() })]);
    expect(over.writes).toEqual([{ kind: 'delete', key: { type: 'MeshService', mesh: 'default', name: 'web' }, version: 3, reason: 'deletion grace period over' }]);
  });

  it('deletes every generated MeshService at once when the mesh is Disabled', () => {
    expect(run([dataplane('dp', [{ port: 80, tags: { 'kuma.io/service': 'web' } }])], [generated('web', [])], false).writes).toEqual([
      { kind: 'delete', key: { type: 'MeshService', mesh: 'default', name: 'web' }, version: 3, reason: 'mesh services disabled' },
    ]);
  });

  it('writes nothing when the MeshService already is what the Dataplanes make', () => {
    const ports = [{ name: '80', port: 80, targetPort: 80, appProtocol: 'tcp' }];
    expect(run([dataplane('dp', [{ port: 80, tags: { 'kuma.io/service': 'web' } }])], [generated('web', ports)]).writes).toEqual([]);
  });
});
