import type { SnapshotResourcesJson } from '../../../shared/api-types.js';
import { decodeResource } from '../protocol/decode.js';
import { redactSecret } from './redact-secrets.js';
import { encodeResource } from '../protocol/encode.js';
import type { ProtoJson } from '../protocol/proto-json.js';
import {
  CLUSTER_TYPE_URL,
  ENDPOINT_TYPE_URL,
  LISTENER_TYPE_URL,
  ROUTE_TYPE_URL,
  SECRET_TYPE_URL,
  TYPE_URL_PREFIX,
  type XdsTypeUrl,
} from '../protocol/type-urls.js';
import type { Snapshot, SnapshotResource, TypeSnapshot } from '../server/snapshot.js';

/**
 * A proxy's snapshot in the shape of Envoy's admin `/config_dump?include_eds`
 * (`envoy.admin.v3.ConfigDump`), so that what Envoy users read on their proxy's admin page reads
 * the same here: `{ configs: [ClustersConfigDump, EndpointsConfigDump, ListenersConfigDump,
 * RoutesConfigDump] }`, each resource under `dynamic_…` with its version, and every Any expanded
 * with its `@type`.
 *
 * Each resource is decoded from the very bytes the stream sends (decodeResource), never from the
 * JSON it was generated from, so the dump shows exactly what goes on the wire. It is the whole
 * snapshot: a proxy is sent the RDS and EDS resources of it that it subscribes to.
 * Types other than the xDS types meshdesk serves have no place in Envoy's dump and are left out.
 */
export interface ConfigDump {
  configs: ProtoJson[];
}

const ADMIN_TYPE_URL = `${TYPE_URL_PREFIX}envoy.admin.v3`;

/** How one type's resources sit in its part of Envoy's config dump. */
const DUMP_SHAPES: { readonly [T in XdsTypeUrl]: (type: TypeSnapshot) => ProtoJson } = {
  [SECRET_TYPE_URL]: ({ version, resources }) => ({
    '@type': `${ADMIN_TYPE_URL}.SecretsConfigDump`,
    dynamic_active_secrets: decoded(resources).map(({ name, resource }) => ({ name, version_info: version, secret: redactSecret(resource) })),
  }),
  [CLUSTER_TYPE_URL]: ({ version, resources }) => ({
    '@type': `${ADMIN_TYPE_URL}.ClustersConfigDump`,
    version_info: version,
    dynamic_active_clusters: decoded(resources).map(({ resource }) => ({ version_info: version, cluster: resource })),
  }),
  [ENDPOINT_TYPE_URL]: ({ version, resources }) => ({
    '@type': `${ADMIN_TYPE_URL}.EndpointsConfigDump`,
    dynamic_endpoint_configs: decoded(resources).map(({ resource }) => ({ version_info: version, endpoint_config: resource })),
  }),
  [LISTENER_TYPE_URL]: ({ version, resources }) => ({
    '@type': `${ADMIN_TYPE_URL}.ListenersConfigDump`,
    version_info: version,
    dynamic_listeners: decoded(resources).map(({ name, resource }) => ({
      name,
      active_state: { version_info: version, listener: resource },
    })),
  }),
  [ROUTE_TYPE_URL]: ({ version, resources }) => ({
    '@type': `${ADMIN_TYPE_URL}.RoutesConfigDump`,
    dynamic_route_configs: decoded(resources).map(({ resource }) => ({ version_info: version, route_config: resource })),
  }),
};

/** Envoy's `/config_dump` order: clusters, endpoints, listeners, routes, then secrets. */
const DUMP_ORDER: readonly XdsTypeUrl[] = [CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL, SECRET_TYPE_URL];

/**
 * The dump of a snapshot, its parts in Envoy's order. Secrets only when there are some: a proxy of
 * a mesh without mTLS, or a gRPC proxy (which reads certificates from files), has no SDS.
 */
export function configDump(snapshot: Snapshot): ConfigDump {
  const configs: ProtoJson[] = [];
  for (const typeUrl of DUMP_ORDER) {
    const type = snapshot.get(typeUrl);
    if (type && !(typeUrl === SECRET_TYPE_URL && type.resources.size === 0)) configs.push(DUMP_SHAPES[typeUrl](type));
  }
  return { configs };
}

function decoded(resources: ReadonlyMap<string, SnapshotResource>): Array<{ name: string; resource: ProtoJson }> {
  return [...resources].map(([name, { any }]) => ({ name, resource: decodeResource(any) }));
}

/**
 * Generated resources as the wire carries them, the way the config dump shows them: encoded, then
 * decoded, so fields at their default (`lb_policy: ROUND_ROBIN`) are left out by the one rule the
 * dump follows. The history shows its snapshots through this, so History and Config agree.
 */
export function asSent(resources: SnapshotResourcesJson): SnapshotResourcesJson {
  return Object.fromEntries(
    Object.entries(resources).map(([typeUrl, list]) => [
      typeUrl,
      list.map(({ name, resource }) => ({ name, resource: decodeResource(encodeResource(typeUrl, resource as ProtoJson)) })),
    ]),
  );
}
