import type { ProtoJson } from '../protocol/proto-json.js';

/**
 * A RouteConfiguration sending every request to one cluster. Domain "*" matches any authority,
 * including the bare service name gRPC clients use (`xds:///web` → "web"). Prefix "/" matches
 * every HTTP path and every gRPC method, and gRPC (gRFC A28) reads it like A27's "".
 */
export function routeToCluster(routeName: string, virtualHostName: string, cluster: string, options: RouteOptions = {}): ProtoJson {
  return {
    name: routeName,
    virtual_hosts: [
      {
        name: virtualHostName,
        domains: ['*'],
        routes: [
          {
            match: { prefix: '/' },
            ...(options.name !== undefined && { name: options.name }),
            route: { cluster, ...options.action },
          },
        ],
      },
    ],
    ...options.config,
  };
}

export interface RouteOptions {
  /** Names the catch-all route. */
  name?: string;
  /** RouteAction fields beside the cluster (timeouts). */
  action?: ProtoJson;
  /** RouteConfiguration fields beside the virtual host. */
  config?: ProtoJson;
}

/**
 * RouteConfiguration fields Kuma writes on every route configuration of a sidecar
 * (CommonRouteConfigurationConfigurer): Envoy must not reject a configuration for naming a
 * cluster that has not arrived yet.
 */
export const SIDECAR_ROUTE_CONFIG_FIELDS: ProtoJson = { validate_clusters: false };
