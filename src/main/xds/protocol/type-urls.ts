/**
 * The five xDS resource types meshdesk serves.
 *
 * XDS_TYPE_URLS is the ADS push order: when several types change at once the server sends them
 * in this order, so that a proxy learns a secret (SDS) before a cluster or listener refers to it, a
 * cluster (CDS) and its endpoints (EDS) before a listener (LDS) or route (RDS) points at it, and
 * never routes traffic to a cluster it does not know yet (xDS "eventual consistency
 * considerations": make before break).
 */
export const SECRET_TYPE_URL = 'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret';
export const CLUSTER_TYPE_URL = 'type.googleapis.com/envoy.config.cluster.v3.Cluster';
export const ENDPOINT_TYPE_URL = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment';
export const LISTENER_TYPE_URL = 'type.googleapis.com/envoy.config.listener.v3.Listener';
export const ROUTE_TYPE_URL = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration';

/** Push order: SDS → CDS → EDS → LDS → RDS. */
export const XDS_TYPE_URLS = [SECRET_TYPE_URL, CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL] as const;
export type XdsTypeUrl = (typeof XDS_TYPE_URLS)[number];

/** Every type URL a client accepts starts with this; protobufjs happily writes one without it. */
export const TYPE_URL_PREFIX = 'type.googleapis.com/';

/** Short names for logs and the UI. */
export const SHORT_TYPE_NAMES: { readonly [T in XdsTypeUrl]: string } = {
  [SECRET_TYPE_URL]: 'sds',
  [CLUSTER_TYPE_URL]: 'cds',
  [ENDPOINT_TYPE_URL]: 'eds',
  [LISTENER_TYPE_URL]: 'lds',
  [ROUTE_TYPE_URL]: 'rds',
};

export function isXdsTypeUrl(typeUrl: string): typeUrl is XdsTypeUrl {
  return (XDS_TYPE_URLS as readonly string[]).includes(typeUrl);
}

/** "lds" for the Listener type URL; any other type URL is returned as is. */
export function shortTypeName(typeUrl: string): string {
  return isXdsTypeUrl(typeUrl) ? SHORT_TYPE_NAMES[typeUrl] : typeUrl;
}

/**
 * LDS and CDS are "state of the world" complete: each response holds every subscribed resource,
 * and a resource missing from a response is deleted. Only they support the wildcard (an empty
 * first request). RDS, EDS and SDS answer only the names asked for, and a missing one means nothing.
 * (xDS protocol, "Resource types" / "How the client specifies what resources to return".)
 */
export function holdsEveryResource(typeUrl: string): boolean {
  return typeUrl === LISTENER_TYPE_URL || typeUrl === CLUSTER_TYPE_URL;
}
