import { describe, expect, it } from 'vitest';
import { linkTarget, proxyKindOf, referencesOf, xdsSections } from './xds-config.js';

const ADMIN = 'type.googleapis.com/envoy.admin.v3';
const dump = {
  configs: [
    { '@type': `${ADMIN}.ClustersConfigDump`, dynamic_active_clusters: [{ version_info: 'c1', cluster: { name: 'echo', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } } } }] },
    { '@type': `${ADMIN}.EndpointsConfigDump`, dynamic_endpoint_configs: [{ version_info: 'e1', endpoint_config: { cluster_name: 'echo', endpoints: [] } }] },
    {
      '@type': `${ADMIN}.ListenersConfigDump`,
      dynamic_listeners: [{ name: 'echo', active_state: { version_info: 'l1', listener: { name: 'echo', api_listener: { api_listener: { rds: { route_config_name: 'echo' } } } } } }],
    },
    {
      '@type': `${ADMIN}.RoutesConfigDump`,
      dynamic_route_configs: [{ version_info: 'r1', route_config: { name: 'echo', virtual_hosts: [{ routes: [{ route: { cluster: 'echo' } }, { route: { cluster: 'gone' } }] }] } }],
    },
  ],
};

describe('xdsSections', () => {
  it("reads Envoy's config dump into sections in the order a request flows, each resource with its version", () => {
    const sections = xdsSections(dump);
    expect(sections.map((section) => [section.type, section.resources.map((each) => `${each.id}@${each.version}`)])).toEqual([
      ['lds', ['lds/echo@l1']],
      ['rds', ['rds/echo@r1']],
      ['cds', ['cds/echo@c1']],
      ['eds', ['eds/echo@e1']],
    ]);
  });
});

describe('cross-links', () => {
  const known = new Set(xdsSections(dump).flatMap((section) => section.resources.map((each) => each.id)));

  it('links listener → route → cluster → endpoints, and only to resources that exist', () => {
    const [lds, rds, cds] = xdsSections(dump).map((section) => section.resources[0]!);
    expect(referencesOf(lds!, known)).toEqual(['rds/echo']);
    expect(referencesOf(rds!, known)).toEqual(['cds/echo']);
    expect(referencesOf(cds!, known)).toEqual(['eds/echo']);
    expect(linkTarget(['virtual_hosts', 0, 'routes', 1, 'route', 'cluster'], 'gone', known)).toBeUndefined();
  });

  it("links a TLS context's SDS secret names to the secrets", () => {
    const secrets = new Set([...known, 'sds/identity_cert:secret:default', 'sds/mesh_ca:secret:default']);
    const context = ['transport_socket', 'typed_config', 'common_tls_context'];
    expect(linkTarget([...context, 'tls_certificate_sds_secret_configs', 0, 'name'], 'identity_cert:secret:default', secrets)).toBe('sds/identity_cert:secret:default');
    expect(linkTarget([...context, 'combined_validation_context', 'validation_context_sds_secret_config', 'name'], 'mesh_ca:secret:default', secrets)).toBe(
      'sds/mesh_ca:secret:default',
    );
  });

  it("takes a proxy sent API listeners for gRPC's xDS client", () => {
    expect(proxyKindOf(dump)).toBe('grpc');
    expect(proxyKindOf({ configs: [] })).toBeUndefined();
    const server = { name: 'grpc/server?xds.resource.listening_address=127.0.0.1:50051', active_state: { listener: { name: 'grpc/server?xds.resource.listening_address=127.0.0.1:50051', filter_chains: [] } } };
    const withServer = { configs: dump.configs.map((config) => (String(config['@type']).endsWith('ListenersConfigDump') ? { ...config, dynamic_listeners: [...(config.dynamic_listeners as object[]), server] } : config)) };
    expect(proxyKindOf(withServer)).toBe('grpc');
  });
});
