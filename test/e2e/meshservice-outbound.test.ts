// A sidecar with a `backendRef` outbound to a MeshService, end to end: the Dataplanes written through
// the HTTP API, the MeshService generated from the backend's Dataplane (mesh mode Everywhere), and
// what a raw ADS client on a real gRPC stream receives for it: the listener, the cluster and the
// endpoints with Kuma 2.14's legacy names (zone `default`, meshdesk's).
import { describe, expect, it, onTestFinished } from 'vitest';
import { decodeResource } from '../../src/main/xds/protocol/decode.js';
import type { ProtoJson } from '../../src/main/xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL } from '../../src/main/xds/protocol/type-urls.js';
import { RawAdsClient } from '../../src/main/xds/server/testing/raw-ads-client.js';
import { startTestCore } from '../support/core.js';
import { tokenMetadata } from '../support/dataplanes.js';
import { putResource } from '../support/put-resource.js';

const CLUSTER = 'default_backend__default_msvc_18081';
const KRI = 'kri_msvc_default_default__backend_18081';

/** The next response of `typeUrl` holding a resource named `name`, acknowledging every response on the way. */
async function resourceNamed(proxy: RawAdsClient, typeUrl: string, name: string): Promise<ProtoJson> {
  for (;;) {
    const response = await proxy.next();
    proxy.ack(response);
    if (response.type_url !== typeUrl) continue;
    const found = response.resources.map(decodeResource).find((resource) => (resource.name ?? resource.cluster_name) === name);
    if (found !== undefined) return found;
  }
}

describe('MeshService outbound over ADS', () => {
  it('serves a backendRef outbound as listener outbound:<address>:<port>, cluster and endpoints by the legacy name', async () => {
    const core = await startTestCore();
    onTestFinished(() => core.close());
    await putResource(core.api.url, '/meshes/default', { type: 'Mesh', name: 'default', meshServices: { mode: 'Everywhere' } });
    await putResource(core.api.url, '/meshes/default/dataplanes/backend-1', {
      type: 'Dataplane',
      mesh: 'default',
      name: 'backend-1',
      networking: { address: '127.0.0.1', inbound: [{ port: 18081, servicePort: 8081, tags: { 'kuma.io/service': 'backend', 'kuma.io/protocol': 'http' } }] },
    });
    await putResource(core.api.url, '/meshes/default/dataplanes/web-1', {
      type: 'Dataplane',
      mesh: 'default',
      name: 'web-1',
      networking: {
        address: '127.0.0.1',
        inbound: [{ port: 18080, servicePort: 8080, tags: { 'kuma.io/service': 'web', 'kuma.io/protocol': 'http' } }],
        outbound: [{ port: 10010, backendRef: { kind: 'MeshService', name: 'backend', port: 18081 } }],
      },
    });
    await core.serviceModel!.settled();

    const proxy = new RawAdsClient(core.xds.port, { id: 'default.web-1', metadata: tokenMetadata(core, 'web-1') });
    onTestFinished(() => proxy.close());
    proxy.send(CLUSTER_TYPE_URL);
    const cluster = await resourceNamed(proxy, CLUSTER_TYPE_URL, CLUSTER);
    expect(cluster.type).toBe('EDS');

    proxy.send(ENDPOINT_TYPE_URL, { names: [CLUSTER] });
    const endpoints = await resourceNamed(proxy, ENDPOINT_TYPE_URL, CLUSTER);
    expect(endpoints.endpoints).toMatchObject([
      { locality: { zone: 'default' }, lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: 18081 } } } }] },
    ]);

    proxy.send(LISTENER_TYPE_URL);
    const listener = await resourceNamed(proxy, LISTENER_TYPE_URL, 'outbound:127.0.0.1:10010');
    expect(listener.metadata).toEqual({ filter_metadata: { 'io.kuma.tags': { 'kuma.io/unified-name': KRI } } });
    const manager = (listener.filter_chains as { filters: { typed_config: ProtoJson }[] }[])[0]!.filters[0]!.typed_config;
    expect(manager).toMatchObject({
      stat_prefix: CLUSTER,
      route_config: { name: KRI, virtual_hosts: [{ name: CLUSTER, routes: [{ route: { cluster: CLUSTER } }] }] },
    });
  });
});
