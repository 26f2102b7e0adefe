import type { Tags } from '../../../shared/resources.js';
import { endpointMetadata } from '../../xds/generate/endpoints.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import type { MultiValueTags } from '../core/proxy-tags.js';
import { decimalFromIntOrString } from '../core/conf-checks.js';
import type { MeshLoadBalancingStrategyConf, ToZoneType } from './api.js';
import { overprovisioningFactorOf } from './overprovisioning.js';

// Kuma's locality-aware load balancing (plugin/v1alpha1/locality_aware.go, priority.go and the
// endpoint builders): which locality and priority each endpoint of a ClusterLoadAssignment gets
// from the proxy's zone, its affinity tags and the failover list.

/** Kuma's zone tag: on endpoints, the zone they run in; on a proxy's inbounds, the proxy's own. */
export const ZONE_TAG = 'kuma.io/zone';
const DEFAULT_OVERPROVISIONING_FACTOR = 200;

/**
 * A proxy's zone. meshdesk runs one local zone and gives proxies no zone of its own, so a proxy is
 * in the zone its inbounds' `kuma.io/zone` tag names (the first, sorted, if they disagree), and in
 * the unnamed zone '' without one: then endpoints without a zone tag are the local ones, as in a
 * single-zone Kuma.
 */
export function proxyZone(tags: MultiValueTags): string {
  return tags.get(ZONE_TAG)?.[0] ?? '';
}

/** Where the proxy stands: its zone, its tag set and its Dataplane's labels (both read for affinity tags). */
export interface LocalitySide {
  zone: string;
  tags: MultiValueTags;
  labels: Readonly<Record<string, string>>;
}

interface Locality {
  zone: string;
  subZone?: string;
  priority: number;
  /** 0: none written. */
  weight: number;
}

interface FlatEndpoint {
  lbEndpoint: ProtoJson;
  tags: Tags;
  labels: Tags;
  locality?: Locality;
}

/** The endpoints' filter metadata Kuma reads: tags under `envoy.lb`, Dataplane labels under `io.kuma.labels`. */
function metadataOf(lbEndpoint: ProtoJson, key: string): Tags {
  const filterMetadata = (lbEndpoint['metadata'] as { filter_metadata?: Record<string, Tags> } | undefined)?.filter_metadata;
  return { ...filterMetadata?.[key] };
}

function flatten(cla: ProtoJson): FlatEndpoint[] {
  return ((cla['endpoints'] ?? []) as ProtoJson[]).flatMap((group) => {
    const locality = group['locality'] as { zone?: string; sub_zone?: string } | undefined;
    return ((group['lb_endpoints'] ?? []) as ProtoJson[]).map((lbEndpoint) => {
      const tags = metadataOf(lbEndpoint, 'envoy.lb');
      const zone = tags[ZONE_TAG];
      const own: Locality | undefined = locality
        ? { zone: locality.zone ?? '', subZone: locality.sub_zone, priority: Number(group['priority'] ?? 0), weight: Number(group['load_balancing_weight'] ?? 0) }
        : undefined;
      // A multi-zone Kuma's EDS puts each endpoint in its zone's locality; meshdesk's does not, so the policy does.
      const placed = zone !== undefined ? { zone, priority: own?.priority ?? 0, weight: 0 } : own;
      return { lbEndpoint, tags, labels: metadataOf(lbEndpoint, 'io.kuma.labels'), ...(placed && { locality: placed }) };
    });
  });
}

/** Kuma's ToLocalityLbEndpoints: one group per locality and priority, sorted by locality name (then size), endpoints by address. */
function group(endpoints: readonly FlatEndpoint[], rebuild: (endpoint: FlatEndpoint) => ProtoJson): ProtoJson[] {
  const groups = new Map<string, { locality?: Locality; lbEndpoints: FlatEndpoint[] }>();
  for (const endpoint of endpoints) {
    const { locality } = endpoint;
    const key = locality ? `${locality.zone}:${locality.subZone ?? ''}:${locality.priority}` : '';
    if (!groups.has(key)) groups.set(key, { locality, lbEndpoints: [] });
    groups.get(key)!.lbEndpoints.push(endpoint);
  }
  const name = (locality?: Locality) => (locality ? `${locality.zone}${locality.subZone ?? ''}` : '');
  return [...groups.values()]
    .sort((a, b) => {
      const [left, right] = [name(a.locality), name(b.locality)];
      if (left !== '' || right !== '') return left < right ? -1 : left > right ? 1 : 0;
      return a.lbEndpoints.length - b.lbEndpoints.length;
    })
    .map(({ locality, lbEndpoints }) => ({
      ...(locality && { locality: { zone: locality.zone, ...(locality.subZone && { sub_zone: locality.subZone }) } }),
      ...(locality && locality.priority > 0 && { priority: locality.priority }),
      ...(locality && locality.weight > 0 && { load_balancing_weight: locality.weight }),
      lb_endpoints: [...lbEndpoints].sort(bySocket).map(rebuild),
    }));
}

function socketOf(endpoint: FlatEndpoint): { address: string; port: number } {
  const socket = (endpoint.lbEndpoint['endpoint'] as { address?: { socket_address?: { address?: string; port_value?: number } } } | undefined)?.address
    ?.socket_address;
  return { address: socket?.address ?? '', port: socket?.port_value ?? 0 };
}

function bySocket(a: FlatEndpoint, b: FlatEndpoint): number {
  const [left, right] = [socketOf(a), socketOf(b)];
  if (left.address !== right.address) return left.address < right.address ? -1 : 1;
  return left.port - right.port;
}

/**
 * Kuma's claConfigurer for one ClusterLoadAssignment (or a cluster's inline `load_assignment`):
 * endpoints with a zone tag go to their zone's locality; other zones than the proxy's get priority
 * 1 (0 when locality awareness is disabled); with `localZone` or `crossZone` the endpoints are
 * regrouped: affinity groups of the local zone as weighted sub-zones, other zones at the priority
 * of the first failover entry that admits them (its position + 1), the rest dropped, and the
 * overprovisioning factor from the failover threshold. Returns the new assignment.
 */
export function localityAwareAssignment(cla: ProtoJson, conf: MeshLoadBalancingStrategyConf, side: LocalitySide): ProtoJson {
  const awareness = conf.localityAwareness;
  const localityAware = awareness?.disabled !== true;
  const endpoints = flatten(cla).map((endpoint) =>
    endpoint.locality && endpoint.locality.zone !== side.zone ? { ...endpoint, locality: { ...endpoint.locality, priority: localityAware ? 1 : 0 } } : endpoint,
  );
  const keep = (endpoint: FlatEndpoint) => ({ ...endpoint.lbEndpoint });
  if (!awareness || (!awareness.localZone && !awareness.crossZone)) return { ...cla, endpoints: group(endpoints, keep) };

  const affinityKeys = new Set((awareness.localZone?.affinityTags ?? []).map(({ key }) => key));
  const affinityLabels = (labels: Tags) => Object.fromEntries(Object.entries(labels).filter(([key]) => affinityKeys.has(key)));
  const localGroups = localLbGroups(conf, side, affinityLabels(side.labels));
  const crossGroups = crossZoneLbGroups(conf, side.zone);
  const placed = endpoints.flatMap((endpoint): FlatEndpoint[] => {
    const zone = endpoint.tags[ZONE_TAG] ?? '';
    if (zone === side.zone) {
      const affinity = localGroups.find(({ key, value }) => (endpoint.tags[key] ?? endpoint.labels[key]) === value);
      const locality = affinity
        ? { zone, subZone: `${affinity.key}=${affinity.value}`, priority: 0, weight: affinity.weight }
        : { zone, priority: 0, weight: 1 };
      return [{ ...endpoint, locality }];
    }
    const admitting = crossGroups.find(({ type, zones }) => type === 'Any' || (type === 'AnyExcept' && !zones.has(zone)) || (type === 'Only' && zones.has(zone)));
    return admitting ? [{ ...endpoint, locality: { zone, priority: admitting.priority, weight: 0 } }] : [];
  });
  const rebuild = (endpoint: FlatEndpoint): ProtoJson => {
    // As Kuma rebuilds it: of the Dataplane's labels only the affinity keys are kept.
    const { metadata: _metadata, ...rest } = endpoint.lbEndpoint;
    return { ...rest, ...endpointMetadata(endpoint.tags, affinityLabels(endpoint.labels)) };
  };
  const policy = (cla['policy'] ?? {}) as ProtoJson;
  return { ...cla, endpoints: group(placed, rebuild), policy: { ...policy, overprovisioning_factor: overprovisioningFactor(conf) } };
}

/**
 * What of the proxy's side `localityAwareAssignment` reads for `cla` under `conf`, as a key for
 * sharing its result: with regrouping (localZone or crossZone) the zone and the proxy's value of
 * each affinity tag; else the zone when an endpoint has a locality to compare with it; else nothing.
 */
export function sideKeyOf(cla: ProtoJson, conf: MeshLoadBalancingStrategyConf): (side: LocalitySide) => string {
  const awareness = conf.localityAwareness;
  if (awareness?.localZone || awareness?.crossZone) {
    const keys = (awareness.localZone?.affinityTags ?? []).map(({ key }) => key);
    return (side) => JSON.stringify([side.zone, ...keys.map((key) => side.tags.get(key)?.[0] ?? side.labels[key] ?? null)]);
  }
  return flatten(cla).some((endpoint) => endpoint.locality !== undefined) ? (side) => side.zone : () => '';
}

interface LocalLbGroup {
  key: string;
  value: string;
  weight: number;
}

/** Kuma's getLocalLbGroups: per affinity tag the proxy has (inbound tags, else its labels), its value and weight (9·10^(n-i-1) by default). */
function localLbGroups(conf: MeshLoadBalancingStrategyConf, side: LocalitySide, labels: Tags): LocalLbGroup[] {
  const tags = conf.localityAwareness?.localZone?.affinityTags ?? [];
  return tags.flatMap(({ key, weight }, index) => {
    const value = side.tags.get(key)?.[0] ?? labels[key];
    return value === undefined ? [] : [{ key, value, weight: weight ?? 9 * 10 ** (tags.length - index - 1) }];
  });
}

interface CrossZoneLbGroup {
  type: ToZoneType;
  zones: ReadonlySet<string>;
  priority: number;
}

/** Kuma's getCrossZoneLbGroups: the failover entries that apply from the local zone, each at its position + 1. */
function crossZoneLbGroups(conf: MeshLoadBalancingStrategyConf, localZone: string): CrossZoneLbGroup[] {
  return (conf.localityAwareness?.crossZone?.failover ?? []).flatMap((failover, index) => {
    if (failover.from && !failover.from.zones.includes(localZone)) return [];
    const known = failover.to.type === 'Any' || failover.to.type === 'AnyExcept' || failover.to.type === 'Only';
    return [{ type: known ? failover.to.type : 'None', zones: new Set(failover.to.zones ?? []), priority: known ? index + 1 : 0 }];
  });
}

/** Kuma's overprovisioningFactor of the conf's failover threshold, else 200. */
function overprovisioningFactor(conf: MeshLoadBalancingStrategyConf): number {
  const threshold = conf.localityAwareness?.crossZone?.failoverThreshold;
  const value = threshold === undefined ? undefined : decimalFromIntOrString(threshold.percentage);
  if (value === undefined || value === 0) return DEFAULT_OVERPROVISIONING_FACTOR;
  return overprovisioningFactorOf(value);
}
