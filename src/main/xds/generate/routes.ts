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
        routes: [{ match: { prefix: '/' }, route: { cluster, ...options.action } }],
      },
    ],
  };
}

export interface RouteOptions {
  /** RouteAction fields beside the cluster (timeouts). */
  action?: ProtoJson;
}
