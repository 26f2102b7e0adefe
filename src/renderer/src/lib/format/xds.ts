// How xDS identifiers are shown: short versions and type names a Kuma or Envoy user recognises.

/** The types meshdesk serves, in push order, as Envoy's admin calls them. */
export const XDS_TYPES = ['sds', 'cds', 'eds', 'lds', 'rds'] as const;
export type XdsType = (typeof XDS_TYPES)[number];

const TYPE_BY_URL: Readonly<Record<string, XdsType>> = {
  'type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret': 'sds',
  'type.googleapis.com/envoy.config.cluster.v3.Cluster': 'cds',
  'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment': 'eds',
  'type.googleapis.com/envoy.config.listener.v3.Listener': 'lds',
  'type.googleapis.com/envoy.config.route.v3.RouteConfiguration': 'rds',
};

/** `cds` for Envoy's Cluster type URL; other URLs shortened to their message name. */
export function xdsTypeOf(typeUrl: string): string {
  return TYPE_BY_URL[typeUrl] ?? typeUrl.slice(typeUrl.lastIndexOf('.') + 1);
}

/** Content-hash versions are long; the first 8 characters identify one in a table. */
export function shortVersion(version: string): string {
  return version.length > 10 ? version.slice(0, 8) : version;
}
