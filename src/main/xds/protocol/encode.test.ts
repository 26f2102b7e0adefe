import { describe, expect, test } from 'vitest';
import { decodeMessage, decodeResource } from './decode.js';
import { ResourceEncodingError, encodeMessage, encodeResource } from './encode.js';
import type { ProtoJson } from './proto-json.js';
import { messageType } from './proto-root.js';
import { expectProtobufjsBytes } from './testing/protobufjs-bytes.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from './type-urls.js';

const TCP_PROXY = 'type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy';
const HTTP_CONNECTION_MANAGER = 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager';
const ROUTER = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router';
const HTTP_PROTOCOL_OPTIONS = 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions';

/** An inbound listener as Kuma names it, forwarding TCP to the local app. */
function inboundListener(tcpProxy: ProtoJson = {}): ProtoJson {
  return {
    name: 'inbound:127.0.0.1:18080',
    address: { socket_address: { address: '127.0.0.1', port_value: 18080 } },
    traffic_direction: 'INBOUND',
    filter_chains: [
      {
        filters: [
          {
            name: 'envoy.filters.network.tcp_proxy',
            typed_config: { '@type': TCP_PROXY, stat_prefix: 'localhost_8080', cluster: 'localhost:8080', ...tcpProxy },
          },
        ],
      },
    ],
    metadata: { filter_metadata: { 'io.kuma.tags': { 'kuma.io/service': 'backend', weight: 2, canary: false, zones: ['a', null] } } },
  };
}

const outboundListener: ProtoJson = {
  name: 'outbound:127.0.0.1:10001',
  address: { socket_address: { address: '127.0.0.1', port_value: 10001 } },
  traffic_direction: 'OUTBOUND',
  filter_chains: [
    {
      filters: [
        {
          name: 'envoy.filters.network.http_connection_manager',
          typed_config: {
            '@type': HTTP_CONNECTION_MANAGER,
            stat_prefix: 'web',
            codec_type: 'HTTP2',
            rds: { config_source: { ads: {}, resource_api_version: 'V3' }, route_config_name: 'outbound:web' },
            http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': ROUTER } }],
            common_http_protocol_options: { idle_timeout: '3600s' },
          },
        },
      ],
    },
  ],
};

const edsCluster: ProtoJson = {
  name: 'web',
  type: 'EDS',
  eds_cluster_config: { eds_config: { ads: {}, resource_api_version: 'V3' } },
  connect_timeout: '5s',
  lb_policy: 'LEAST_REQUEST',
  per_connection_buffer_limit_bytes: 32768,
  typed_extension_protocol_options: {
    'envoy.extensions.upstreams.http.v3.HttpProtocolOptions': { '@type': HTTP_PROTOCOL_OPTIONS, explicit_http_config: { http2_protocol_options: {} } },
  },
};

const loadAssignment: ProtoJson = {
  cluster_name: 'web',
  endpoints: [
    {
      locality: { region: 'local', zone: 'zone-a' },
      load_balancing_weight: 1,
      lb_endpoints: [
        {
          endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: 18081 } } },
          health_status: 'HEALTHY',
          load_balancing_weight: 10,
        },
      ],
    },
  ],
};

const routeConfiguration: ProtoJson = {
  name: 'outbound:web',
  virtual_hosts: [
    {
      name: 'web',
      domains: ['*'],
      routes: [{ match: { prefix: '/' }, route: { cluster: 'web', timeout: '0.250s' } }],
    },
  ],
};

function encodingError(run: () => unknown): ResourceEncodingError {
  try {
    run();
  } catch (error) {
    if (error instanceof ResourceEncodingError) return error;
    throw error;
  }
  throw new Error('expected a ResourceEncodingError, nothing was thrown');
}

describe('encodeResource then decodeResource', () => {
  test.each([
    ['an inbound Listener with tcp_proxy and Struct metadata', LISTENER_TYPE_URL, inboundListener()],
    ['an outbound Listener with an HttpConnectionManager over RDS', LISTENER_TYPE_URL, outboundListener],
    ['an EDS Cluster with HTTP/2 protocol options', CLUSTER_TYPE_URL, edsCluster],
    ['a ClusterLoadAssignment with a locality and weights', ENDPOINT_TYPE_URL, loadAssignment],
    ['a RouteConfiguration', ROUTE_TYPE_URL, routeConfiguration],
  ])('round-trips %s', (_name, typeUrl, resource) => {
    const any = encodeResource(typeUrl, resource);
    expect(any.type_url).toBe(typeUrl);
    expect(any.value.length).toBeGreaterThan(0);
    expect(decodeResource(any)).toEqual({ '@type': typeUrl, ...resource });
  });

  test('leaves out fields at their default value, except oneof members', () => {
    const decoded = decodeResource(encodeResource(CLUSTER_TYPE_URL, { name: 'local', type: 'STATIC', lb_policy: 'ROUND_ROBIN', connect_timeout: '1s' }));
    // STATIC and ROUND_ROBIN are both 0; only `type` is in a oneof, where being set means something.
    expect(decoded).toEqual({ '@type': CLUSTER_TYPE_URL, name: 'local', type: 'STATIC', connect_timeout: '1s' });
  });
});

describe('encodeResource refuses what protobufjs would drop silently', () => {
  test('an unknown field, named by its path and the resource', () => {
    const error = encodingError(() => encodeResource(LISTENER_TYPE_URL, inboundListener({ idle_timeuot: '1s' })));
    expect(error.message).toBe(
      'cannot encode lds resource "inbound:127.0.0.1:18080": filter_chains[0].filters[0].typed_config.idle_timeuot: ' +
        'unknown field of envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy',
    );
  });

  test('a camelCase field name, with the snake_case hint', () => {
    const error = encodingError(() => encodeResource(CLUSTER_TYPE_URL, { ...edsCluster, connectTimeout: '5s' }));
    expect(error.violations).toEqual([{ path: 'connectTimeout', problem: 'unknown field of envoy.config.cluster.v3.Cluster (did you mean "connect_timeout"?)' }]);
  });

  test('an unknown enum name', () => {
    const error = encodingError(() => encodeResource(LISTENER_TYPE_URL, { ...inboundListener(), traffic_direction: 'SIDEWAYS' }));
    expect(error.violations).toHaveLength(1);
    expect(error.violations[0]!.path).toBe('traffic_direction');
    expect(error.violations[0]!.problem).toMatch(/^unknown enum value "SIDEWAYS" of envoy\.config\.core\.v3\.TrafficDirection/);
  });

  test('an Any whose @type is not in the proto root (it would encode as an empty Any)', () => {
    const redis = 'type.googleapis.com/envoy.extensions.filters.network.redis_proxy.v3.RedisProxy';
    const error = encodingError(() => encodeResource(LISTENER_TYPE_URL, inboundListener({ '@type': redis })));
    expect(error.violations).toEqual([
      { path: 'filter_chains[0].filters[0].typed_config.@type', problem: `unknown type "${redis}": not in the Envoy proto root, it would encode as an empty Any` },
    ]);
  });

  test('an Any @type without the type.googleapis.com/ prefix', () => {
    const error = encodingError(() => encodeResource(LISTENER_TYPE_URL, inboundListener({ '@type': 'envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy' })));
    expect(error.violations[0]).toEqual({
      path: 'filter_chains[0].filters[0].typed_config.@type',
      problem: 'type URL "envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy" must start with "type.googleapis.com/"',
    });
  });

  test('a resource type URL without the prefix', () => {
    const error = encodingError(() => encodeResource('envoy.config.cluster.v3.Cluster', edsCluster));
    expect(error.message).toMatch(/type URL "envoy\.config\.cluster\.v3\.Cluster" must start with "type\.googleapis\.com\/"/);
  });

  test('values of the wrong type', () => {
    const error = encodingError(() =>
      encodeResource(LISTENER_TYPE_URL, {
        ...inboundListener({ stat_prefix: 5 }),
        address: { socket_address: { address: '127.0.0.1', port_value: true } },
        filter_chains: inboundListener({ stat_prefix: 5 }).filter_chains,
        listener_filters: {},
      }),
    );
    expect(error.violations).toEqual([
      { path: 'address.socket_address.port_value', problem: 'expected an integer (uint32), got true' },
      { path: 'filter_chains[0].filters[0].typed_config.stat_prefix', problem: 'expected a string (string), got 5' },
      { path: 'listener_filters', problem: 'expected an array, got {}' },
    ]);
  });

  test('a duration that is not a proto3 JSON duration string', () => {
    const error = encodingError(() => encodeResource(CLUSTER_TYPE_URL, { ...edsCluster, connect_timeout: 5 }));
    expect(error.violations[0]!.problem).toMatch(/^expected a duration string such as "5s"/);
  });

  test('two members of one oneof', () => {
    const error = encodingError(() => encodeResource(CLUSTER_TYPE_URL, { ...edsCluster, cluster_type: { name: 'envoy.clusters.aggregate' } }));
    expect(error.violations).toContainEqual({ path: '', problem: 'type and cluster_type are both set, but only one of oneof "cluster_discovery_type" may be' });
  });
});

describe("encodeResource checks Envoy's validation rules", () => {
  test.each([
    ['string.min_len', LISTENER_TYPE_URL, inboundListener({ stat_prefix: '' }), 'filter_chains[0].filters[0].typed_config.stat_prefix', 'must be at least 1 character(s) long (string.min_len), got 0'],
    ['uint32.lte', ENDPOINT_TYPE_URL, { cluster_name: 'web', endpoints: [{ lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: 70000 } } } }] }] }, 'endpoints[0].lb_endpoints[0].endpoint.address.socket_address.port_value', 'must be at most 65535 (uint32.lte), got 70000'],
    ['uint32.gte on a wrapper', ENDPOINT_TYPE_URL, { cluster_name: 'web', endpoints: [{ load_balancing_weight: 0 }] }, 'endpoints[0].load_balancing_weight', 'must be at least 1 (uint32.gte), got 0'],
    ['a required oneof', LISTENER_TYPE_URL, inboundListener({ cluster: undefined }), 'filter_chains[0].filters[0].typed_config', 'one of cluster, weighted_clusters is required (oneof "cluster_specifier", validate.required)'],
    ['message.required', LISTENER_TYPE_URL, { ...outboundListener, filter_chains: [{ filters: [{ name: 'hcm', typed_config: { '@type': HTTP_CONNECTION_MANAGER, stat_prefix: 'web', rds: { route_config_name: 'web' } } }] }] }, 'filter_chains[0].filters[0].typed_config.rds.config_source', 'is required (message.required)'],
    ['repeated.min_items', ROUTE_TYPE_URL, { name: 'web', virtual_hosts: [{ name: 'web', domains: [] }] }, 'virtual_hosts[0].domains', 'must have at least 1 item(s) (repeated.min_items)'],
    ['duration.gt', CLUSTER_TYPE_URL, { ...edsCluster, connect_timeout: '0s' }, 'connect_timeout', 'must be greater than 0s (duration.gt), got 0s'],
    // The option is `enum = {not_in: 6}`: a single value where the rule usually holds a list.
    ['enum.not_in given one value', CLUSTER_TYPE_URL, { ...edsCluster, health_checks: [{ timeout: '1s', interval: '1s', unhealthy_threshold: 1, healthy_threshold: 1, http_health_check: { path: '/', method: 'CONNECT' } }] }, 'health_checks[0].http_health_check.method', 'must not be 6 (enum.not_in)'],
  ])('%s', (_rule, typeUrl, resource, path, problem) => {
    const error = encodingError(() => encodeResource(typeUrl, JSON.parse(JSON.stringify(resource)) as ProtoJson));
    expect(error.violations).toContainEqual({ path, problem });
  });

  test('a listener without a name names itself "(unnamed)" and reports every violation at once', () => {
    const error = encodingError(() => encodeResource(LISTENER_TYPE_URL, { traffic_direction: 'UP', name: 7 }));
    expect(error.resource).toBe('lds resource "(unnamed)"');
    expect(error.violations.map((violation) => violation.path)).toEqual(['traffic_direction', 'name']);
  });
});

/**
 * Checks that `bytes` are what protobufjs's own encoder writes for the message they hold: decoded
 * and encoded again by protobufjs, at every level, Anys' messages included.
 */
describe('encodeResource writes parts once and the whole as protobufjs does', () => {
  test('resources sharing parts each get the bytes of a whole encode, in field-number order at every level', () => {
    // Scalars between messages (type, connect_timeout, lb_policy), a map of Anys, repeated messages.
    const healthCheck = { timeout: '2s', interval: '10s', unhealthy_threshold: 3, healthy_threshold: 1, http_health_check: { path: '/health' } };
    const first = { ...edsCluster, health_checks: [healthCheck], metadata: { filter_metadata: { 'io.kuma.tags': { app: 'web' } } } };
    const second = { ...first, name: 'web-2', health_checks: [healthCheck, { ...healthCheck, http_health_check: { path: '/other' } }] };
    const listeners = [inboundListener(), { ...inboundListener(), name: 'inbound:127.0.0.1:18081' }, outboundListener];
    for (const [typeUrl, resource] of [
      [CLUSTER_TYPE_URL, first],
      [CLUSTER_TYPE_URL, second],
      ...listeners.map((listener) => [LISTENER_TYPE_URL, listener] as const),
    ] as const) {
      const { value } = encodeResource(typeUrl, resource);
      expectProtobufjsBytes(messageType(typeUrl.slice(typeUrl.indexOf('/') + 1)), value);
      expect(decodeResource({ type_url: typeUrl, value })).toEqual({ '@type': typeUrl, ...resource });
    }
  });
});

describe('encodeMessage', () => {
  const bootstrap = {
    node: { id: 'default.backend-1', cluster: 'backend', metadata: { 'dataplane.resource': '{"type":"Dataplane"}' } },
    admin: { address: { socket_address: { address: '127.0.0.1', port_value: 9901 } } },
    dynamic_resources: {
      ads_config: { api_type: 'GRPC', transport_api_version: 'V3', grpc_services: [{ envoy_grpc: { cluster_name: 'ads_cluster' } }] },
      lds_config: { ads: {}, resource_api_version: 'V3' },
      cds_config: { ads: {}, resource_api_version: 'V3' },
    },
    static_resources: { clusters: [{ ...edsCluster, name: 'ads_cluster', type: 'STATIC', eds_cluster_config: undefined, load_assignment: { ...loadAssignment, cluster_name: 'ads_cluster' } }] },
  };

  test('validates a bootstrap against envoy.config.bootstrap.v3.Bootstrap and decodes it back', () => {
    const json = JSON.parse(JSON.stringify(bootstrap)) as ProtoJson;
    const bytes = encodeMessage('envoy.config.bootstrap.v3.Bootstrap', json, 'bootstrap of default.backend-1');
    expect(decodeMessage('envoy.config.bootstrap.v3.Bootstrap', bytes)).toEqual(json);
  });

  test('names the message it was given in errors', () => {
    const json = { ...bootstrap, admin: { adress: {} } };
    expect(() => encodeMessage('envoy.config.bootstrap.v3.Bootstrap', json, 'bootstrap of default.backend-1')).toThrow(
      'cannot encode bootstrap of default.backend-1: admin.adress: unknown field of envoy.config.bootstrap.v3.Admin',
    );
  });
});
