import type { ProtoJson } from '../../protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../../protocol/type-urls.js';
import { snapshotFromJson, type Snapshot } from '../snapshot.js';

/**
 * Hand-written Envoy resources for the server's tests: the configuration a proxyless gRPC client
 * needs to reach one service (API listener → route → EDS cluster → endpoints with a locality).
 */

const ADS_CONFIG_SOURCE = { ads: {}, resource_api_version: 'V3' };

export function apiListener(name: string, routeConfigName: string): ProtoJson {
  return {
    name,
    api_listener: {
      api_listener: {
        '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
        stat_prefix: name,
        rds: { config_source: ADS_CONFIG_SOURCE, route_config_name: routeConfigName },
        http_filters: [{ name: 'envoy.filters.http.router', typed_config: { '@type': 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' } }],
      },
    },
  };
}

export function routeConfiguration(name: string, cluster: string): ProtoJson {
  return {
    name,
    virtual_hosts: [{ name, domains: ['*'], routes: [{ match: { prefix: '' }, route: { cluster } }] }],
  };
}

export function edsCluster(name: string): ProtoJson {
  return {
    name,
    type: 'EDS',
    eds_cluster_config: { eds_config: ADS_CONFIG_SOURCE, service_name: name },
    connect_timeout: '1s',
    lb_policy: 'ROUND_ROBIN',
  };
}

export function loadAssignment(clusterName: string, port: number): ProtoJson {
  return {
    cluster_name: clusterName,
    endpoints: [
      {
        locality: { region: 'local', zone: 'zone-a' },
        load_balancing_weight: 1,
        lb_endpoints: [{ endpoint: { address: { socket_address: { address: '127.0.0.1', port_value: port } } } }],
      },
    ],
  };
}

/** The names of every resource of a test snapshot, by type; ports of endpoints default to 1. */
export interface FixtureNames {
  listeners?: Array<[name: string, routeConfigName: string]>;
  routes?: Array<[name: string, cluster: string]>;
  clusters?: string[];
  endpoints?: Array<[clusterName: string, port: number]>;
}

/** A snapshot whose every type has version `version`; a type left out is absent from the snapshot. */
export function fixtureSnapshot(version: string, names: FixtureNames): Snapshot {
  const types: Record<string, { version: string; resources: ProtoJson[] }> = {};
  if (names.clusters) types[CLUSTER_TYPE_URL] = { version, resources: names.clusters.map(edsCluster) };
  if (names.endpoints) types[ENDPOINT_TYPE_URL] = { version, resources: names.endpoints.map(([name, port]) => loadAssignment(name, port)) };
  if (names.listeners) types[LISTENER_TYPE_URL] = { version, resources: names.listeners.map(([name, route]) => apiListener(name, route)) };
  if (names.routes) types[ROUTE_TYPE_URL] = { version, resources: names.routes.map(([name, cluster]) => routeConfiguration(name, cluster)) };
  return snapshotFromJson(types);
}

/** Everything `xds:///echo` needs, with the echo server listening on `port`. */
export function echoSnapshot(version: string, port: number): Snapshot {
  return fixtureSnapshot(version, {
    listeners: [['echo', 'echo-route']],
    routes: [['echo-route', 'echo-cluster']],
    clusters: ['echo-cluster'],
    endpoints: [['echo-cluster', port]],
  });
}
