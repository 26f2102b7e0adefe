import { describe, expect, it } from 'vitest';
import { diffSnapshots } from './snapshot-diff.js';

const CDS = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
const EDS = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';

const endpoints = (port: number) => ({
  cluster_name: 'echo',
  endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } } }] }],
});

describe('diffSnapshots', () => {
  it('names each changed field by its path with the old and new value, and leaves identical resources out', () => {
    const cluster = { name: 'echo', type: 'EDS' };
    const diffs = diffSnapshots(
      { [CDS]: [{ name: 'echo', resource: cluster }], [EDS]: [{ name: 'echo', resource: endpoints(8080) }] },
      { [CDS]: [{ name: 'echo', resource: cluster }], [EDS]: [{ name: 'echo', resource: endpoints(9090) }] },
    );
    expect(diffs).toEqual([
      {
        key: 'eds/echo',
        type: 'eds',
        name: 'echo',
        status: 'changed',
        changes: [{ kind: 'changed', path: 'endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value', oldValue: 8080, value: 9090 }],
        resource: endpoints(9090),
      },
    ]);
  });

  it('tells a resource that appeared or disappeared apart from one that changed, keyed by type and name', () => {
    const diffs = diffSnapshots(
      { [CDS]: [{ name: 'old', resource: { name: 'old' } }], [EDS]: [{ name: 'old', resource: { cluster_name: 'old' } }] },
      { [CDS]: [{ name: 'new', resource: { name: 'new' } }], [EDS]: [{ name: 'old', resource: { cluster_name: 'old' } }] },
    );
    expect(diffs.map(({ key, status }) => [key, status])).toEqual([
      ['cds/new', 'added'],
      ['cds/old', 'removed'],
    ]);
  });
});
