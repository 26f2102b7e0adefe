import { beforeAll, describe, expect, it } from 'vitest';
import { encodeMessage } from '../protocol/encode.js';
import { protoRoot } from '../protocol/proto-root.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../protocol/type-urls.js';
import { fixtureSnapshot, echoSnapshot } from '../server/testing/fixtures.js';
import { configDump } from './config-dump.js';

describe('config dump', () => {
  // Envoy's admin protos are not part of the runtime root; this test adds them so that the strict
  // encoder can check every field of the dump against envoy.admin.v3.ConfigDump.
  beforeAll(() => {
    protoRoot().loadSync('envoy/admin/v3/config_dump.proto', { keepCase: true });
    protoRoot().resolveAll();
  });

  it("has the shape of Envoy's admin config dump, field for field", () => {
    const dump = configDump(echoSnapshot('v1', 8080));

    expect(() => encodeMessage('envoy.admin.v3.ConfigDump', dump)).not.toThrow();
  });

  it("lists its parts in Envoy's order, each resource with its version and its Any expanded", () => {
    const dump = configDump(echoSnapshot('v7', 8080));

    expect(dump.configs.map((config) => config['@type'])).toEqual([
      'type.googleapis.com/envoy.admin.v3.ClustersConfigDump',
      'type.googleapis.com/envoy.admin.v3.EndpointsConfigDump',
      'type.googleapis.com/envoy.admin.v3.ListenersConfigDump',
      'type.googleapis.com/envoy.admin.v3.RoutesConfigDump',
    ]);
    expect(dump.configs[0]).toMatchObject({
      version_info: 'v7',
      dynamic_active_clusters: [{ version_info: 'v7', cluster: { '@type': CLUSTER_TYPE_URL, name: 'echo-cluster', type: 'EDS' } }],
    });
    expect(dump.configs[2]).toMatchObject({
      dynamic_listeners: [
        {
          name: 'echo',
          active_state: {
            version_info: 'v7',
            listener: {
              '@type': LISTENER_TYPE_URL,
              api_listener: {
                api_listener: {
                  '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
                  stat_prefix: 'echo',
                },
              },
            },
          },
        },
      ],
    });
  });

  it('shows what the bytes on the wire say, not the JSON the snapshot was built from', () => {
    const snapshot = echoSnapshot('v1', 8080);
    const endpoints = snapshot.get(ENDPOINT_TYPE_URL)!.resources.get('echo-cluster')!;
    // The generator's JSON is kept beside the Any for convenience; only the Any is sent.
    const tampered = new Map(snapshot).set(ENDPOINT_TYPE_URL, {
      version: 'v1',
      resources: new Map([['echo-cluster', { any: endpoints.any, json: { cluster_name: 'not-what-was-sent' } }]]),
    });

    const dump = configDump(tampered);

    expect(dump.configs[1]).toMatchObject({
      dynamic_endpoint_configs: [{ endpoint_config: { '@type': ENDPOINT_TYPE_URL, cluster_name: 'echo-cluster' } }],
    });
  });

  it('leaves out the types a snapshot does not hold, and keeps every version per type', () => {
    const snapshot = new Map(fixtureSnapshot('c1', { clusters: ['a', 'b'] })).set(
      ROUTE_TYPE_URL,
      fixtureSnapshot('r9', { routes: [['r', 'a']] }).get(ROUTE_TYPE_URL)!,
    );

    const dump = configDump(snapshot);

    expect(dump.configs).toHaveLength(2);
    expect(dump.configs[0]).toMatchObject({ version_info: 'c1', dynamic_active_clusters: [{ cluster: { name: 'a' } }, { cluster: { name: 'b' } }] });
    expect(dump.configs[1]).toMatchObject({ dynamic_route_configs: [{ version_info: 'r9', route_config: { name: 'r' } }] });
  });

  it('is empty for an empty snapshot', () => {
    expect(configDump(new Map())).toEqual({ configs: [] });
  });
});
