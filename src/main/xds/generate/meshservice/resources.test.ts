import { describe, expect, it } from 'vitest';
import type { MeshServicePort } from '../../../../shared/meshservice-types.js';
import type { Inbound, MeshSpec } from '../../../../shared/resources.js';
import { buildMeshContext } from '../../context/build-mesh-context.js';
import type { ProtoJson } from '../../protocol/proto-json.js';
import { meshServiceOutboundResources } from './resources.js';
import { testDataplane, testMesh, testMeshService } from './test-resources.js';

const STRICT: MeshSpec = { mtls: { enabledBackend: 'ca', backends: [{ name: 'ca', type: 'builtin' }] } };
const PERMISSIVE: MeshSpec = { mtls: { enabledBackend: 'ca', backends: [{ name: 'ca', type: 'builtin', mode: 'PERMISSIVE' }] } };

function build(port: MeshServicePort, { meshSpec = {}, inbounds = [] as Inbound[], tlsReady = false, bindToPort = true } = {}) {
  const meshService = testMeshService(
    'm',
    'db',
    { selector: { dataplaneTags: { 'kuma.io/service': 'db' } }, ports: [port], identities: [{ type: 'ServiceTag', value: 'db' }, { type: 'ServiceTag', value: 'db-v2' }] },
    { labels: { 'kuma.io/zone': 'default' }, ...(tlsReady && { status: { tls: { status: 'Ready' } } }) },
  );
  const server = testDataplane('m', 'db-1', { networking: { address: '10.0.0.5', advertisedAddress: '192.0.2.5', inbound: inbounds } }, { team: 'data' });
  const context = buildMeshContext(testMesh('m', meshSpec), [server], {
    zone: 'default',
    destinations: { meshServices: [meshService], meshExternalServices: [], meshMultiZoneServices: [] },
  });
  return meshServiceOutboundResources(context, { address: '241.0.0.0', port: port.port, meshService, section: { port: port.port, name: String(port.port) }, bindToPort });
}

const filterOf = (listener: ProtoJson) => (listener.filter_chains as { filters: ProtoJson[] }[])[0]!.filters[0]!;
const tlsOf = (cluster: ProtoJson) => cluster.transport_socket as { typed_config: { sni: string; common_tls_context: ProtoJson } } | undefined;
const dbInbound = (extra: Partial<Inbound> = {}): Inbound => ({ port: 5432, tags: { 'kuma.io/service': 'db', 'kuma.io/protocol': 'tcp' }, ...extra });

describe('the Envoy resources of a MeshService outbound', () => {
  it('forwards a tcp port with tcp_proxy to the legacy-named cluster, still HTTP/2 upstream', () => {
    const built = build({ port: 5432, targetPort: 5432, appProtocol: 'tcp' }, { inbounds: [dbInbound()] });
    expect(built.clusterName).toBe('m_db__default_msvc_5432');
    expect(filterOf(built.listener)).toMatchObject({ name: 'envoy.filters.network.tcp_proxy', typed_config: { cluster: 'm_db__default_msvc_5432', stat_prefix: 'm_db__default_msvc_5432' } });
    expect(built.listener.metadata).toEqual({ filter_metadata: { 'io.kuma.tags': { 'kuma.io/unified-name': 'kri_msvc_m_default__db_5432' } } });
    expect(JSON.stringify(built.cluster)).toContain('http2_protocol_options');
  });

  it('puts a grpc port behind an HttpConnectionManager with gRPC stats', () => {
    const built = build({ port: 50051, targetPort: 50051, appProtocol: 'grpc' });
    const manager = filterOf(built.listener).typed_config as { route_config: { name: string }; http_filters: { name: string }[] };
    expect(manager.route_config.name).toBe('kri_msvc_m_default__db_50051');
    expect(manager.http_filters.map((filter) => filter.name)).toEqual(['envoy.filters.http.grpc_stats', 'envoy.filters.http.router']);
  });

  it('serves a port of another appProtocol (kafka) as tcp', () => {
    expect(filterOf(build({ port: 9092, targetPort: 9092, appProtocol: 'kafka' }).listener).name).toBe('envoy.filters.network.tcp_proxy');
  });

  it("lists the healthy inbounds serving the port (by number or name) at the advertised address, with their tags but the service, the Dataplane's labels and zone", () => {
    const inbounds = [dbInbound({ name: 'pg' }), dbInbound({ port: 5433, state: 'NotReady' }), dbInbound({ port: 9000 })];
    const byName = build({ port: 5432, targetPort: 'pg', appProtocol: 'tcp' }, { inbounds });
    expect(byName.endpoints).toEqual({
      cluster_name: 'm_db__default_msvc_5432',
      endpoints: [
        {
          locality: { zone: 'default' },
          lb_endpoints: [
            {
              endpoint: { address: { socket_address: { address: '192.0.2.5', port_value: 5432 } } },
              load_balancing_weight: 1,
              metadata: {
                filter_metadata: {
                  'envoy.lb': { 'kuma.io/protocol': 'tcp', 'kuma.io/zone': 'default' },
                  'envoy.transport_socket_match': { 'kuma.io/protocol': 'tcp', 'kuma.io/zone': 'default' },
                  'io.kuma.labels': { team: 'data' },
                },
              },
            },
          ],
        },
      ],
    });
    expect(build({ port: 5433, targetPort: 5433 }, { inbounds }).endpoints).toEqual({ cluster_name: 'm_db__default_msvc_5433', endpoints: [] });
  });

  it('speaks mesh mTLS with every ServiceTag identity as SAN and the .ms SNI; plaintext without mTLS', () => {
    const tls = tlsOf(build({ port: 5432, targetPort: 5432 }, { meshSpec: STRICT }).cluster)!;
    expect(tls.typed_config.sni).toBe(`a${tls.typed_config.sni.slice(1, 17)}.db.5432.m.ms`);
    expect(tls.typed_config.common_tls_context).toMatchObject({
      combined_validation_context: {
        default_validation_context: {
          match_typed_subject_alt_names: [
            { san_type: 'URI', matcher: { exact: 'spiffe://m/db' } },
            { san_type: 'URI', matcher: { exact: 'spiffe://m/db-v2' } },
          ],
        },
      },
    });
    expect(tlsOf(build({ port: 5432, targetPort: 5432 }).cluster)).toBeUndefined();
  });

  it('sends plaintext in a PERMISSIVE mesh until the MeshService says its TLS is Ready', () => {
    expect(tlsOf(build({ port: 5432, targetPort: 5432 }, { meshSpec: PERMISSIVE }).cluster)).toBeUndefined();
    expect(tlsOf(build({ port: 5432, targetPort: 5432 }, { meshSpec: PERMISSIVE, tlsReady: true }).cluster)).toBeDefined();
  });

  it('does not bind a transparent proxy VIP listener', () => {
    expect(build({ port: 5432, targetPort: 5432 }, { bindToPort: false }).listener.bind_to_port).toBe(false);
    expect(build({ port: 5432, targetPort: 5432 }).listener.bind_to_port).toBeUndefined();
  });
});
