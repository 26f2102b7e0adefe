// The config dump taken apart for the Config tab: one entry per resource, grouped by xDS type in
// the order a request flows (listener → route → cluster → endpoints), with the references between them.
import type { ConfigDump } from '../../../../shared/api-types.js';
import type { XdsType } from '../../lib/format/xds.js';

export type JsonPath = readonly (string | number)[];

/** One resource of the dump; `id` (`cds/echo`) is what cross-links point at. */
export interface XdsResourceEntry {
  id: string;
  type: XdsType;
  name: string;
  version: string;
  resource: Record<string, unknown>;
  /** Lower-case JSON, for search. */
  haystack: string;
}

export interface XdsSection {
  type: XdsType;
  /** Envoy's name for the type: `Listeners`. */
  label: string;
  resources: XdsResourceEntry[];
}

/** Where each type sits in Envoy's dump: its part's message name and how to read one entry. */
const DUMP_PARTS: Record<XdsType, { message: string; label: string; entries: string; read: (entry: Record<string, unknown>) => unknown }> = {
  lds: { message: 'ListenersConfigDump', label: 'Listeners', entries: 'dynamic_listeners', read: (e) => (e.active_state as Record<string, unknown> | undefined)?.listener },
  rds: { message: 'RoutesConfigDump', label: 'Routes', entries: 'dynamic_route_configs', read: (e) => e.route_config },
  cds: { message: 'ClustersConfigDump', label: 'Clusters', entries: 'dynamic_active_clusters', read: (e) => e.cluster },
  eds: { message: 'EndpointsConfigDump', label: 'Endpoints', entries: 'dynamic_endpoint_configs', read: (e) => e.endpoint_config },
  sds: { message: 'SecretsConfigDump', label: 'Secrets', entries: 'dynamic_active_secrets', read: (e) => e.secret },
};

/** The order sections show in: the way a request goes through the configuration, then the secrets its TLS uses. */
export const FLOW_ORDER: readonly XdsType[] = ['lds', 'rds', 'cds', 'eds', 'sds'];

/** The sections of the dump's parts; a part the dump leaves out (Secrets without mTLS) has none. */
export function xdsSections(dump: ConfigDump): XdsSection[] {
  return FLOW_ORDER.flatMap((type) => {
    const part = DUMP_PARTS[type];
    const config = dump.configs.find((each) => String(each['@type']).endsWith(`.${part.message}`));
    if (config === undefined && type === 'sds') return [];
    const entries = (config?.[part.entries] as Record<string, unknown>[] | undefined) ?? [];
    const resources = entries.flatMap((entry) => {
      const resource = part.read(entry) as Record<string, unknown> | undefined;
      if (!resource) return [];
      const name = String(type === 'eds' ? resource.cluster_name : resource.name);
      const version = String(entry.version_info ?? (entry.active_state as Record<string, unknown> | undefined)?.version_info ?? '');
      return [{ id: `${type}/${name}`, type, name, version, resource, haystack: JSON.stringify(resource).toLowerCase() }];
    });
    return [{ type, label: part.label, resources }];
  });
}

/**
 * The resource a field points at, by Envoy's field names: a listener's `route_config_name`, a
 * route's `cluster` (or a weighted cluster's `name`), a cluster's EDS `service_name`, and an
 * endpoint assignment's `cluster_name` back to its cluster, and a TLS context's SDS secret names
 * to the secrets. Only links to resources that exist.
 */
export function linkTarget(path: JsonPath, value: unknown, known: ReadonlySet<string>): string | undefined {
  if (typeof value !== 'string') return undefined;
  const key = path.at(-1);
  let target: string | undefined;
  if (key === 'route_config_name') target = `rds/${value}`;
  else if (key === 'cluster' || key === 'cluster_name') target = `cds/${value}`;
  else if (key === 'service_name' && path.includes('eds_cluster_config')) target = `eds/${value}`;
  else if (key === 'name' && path.at(-3) === 'clusters' && path.at(-4) === 'weighted_clusters') target = `cds/${value}`;
  else if (key === 'name' && (path.at(-2) === 'validation_context_sds_secret_config' || path.at(-3) === 'tls_certificate_sds_secret_configs')) target = `sds/${value}`;
  return target !== undefined && known.has(target) ? target : undefined;
}

/** Every resource one resource points at, in the order found; an EDS cluster points at its endpoints. */
export function referencesOf(entry: XdsResourceEntry, known: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, path: (string | number)[]): void => {
    const target = linkTarget(path, value, known);
    if (target && target !== entry.id) found.add(target);
    if (value && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, [...path, Array.isArray(value) ? Number(key) : key]);
    }
  };
  walk(entry.resource, []);
  // A cluster without an EDS service name takes its endpoints by its own name.
  if (entry.type === 'cds' && entry.resource.type === 'EDS' && known.has(`eds/${entry.name}`)) found.add(`eds/${entry.name}`);
  return [...found];
}

/** `a.b[0].c`, as a developer writes a field path. */
export function formatPath(path: JsonPath): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('');
}

/**
 * Which client the configuration was generated for: gRPC's xDS client is sent API listeners,
 * Envoy listeners on real addresses. Unknown while there is no listener to tell by.
 */
export function proxyKindOf(dump: ConfigDump): 'envoy' | 'grpc' | undefined {
  const listeners = xdsSections(dump).find((section) => section.type === 'lds')?.resources ?? [];
  if (listeners.length === 0) return undefined;
  // gRPC clients get API listeners; gRPC's xDS servers get listeners under the name they ask for (gRFC A36).
  return listeners.every((listener) => 'api_listener' in listener.resource || listener.name.startsWith('grpc/server?')) ? 'grpc' : 'envoy';
}
