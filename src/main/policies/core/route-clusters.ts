// The clusters a route policy sends traffic to (Kuma's pkg/plugins/policies/core/xds/meshroute):
// one per distinct backendRef, a whole service or a tagged subset of it ("split cluster"), each
// with its endpoints, shared by MeshHTTPRoute and MeshTCPRoute.
import { createHash } from 'node:crypto';
import type { PolicyOrigin } from '../../../shared/policy-types.js';
import { SERVICE_TAG, type Protocol, type Tags } from '../../../shared/resources.js';
import type { Endpoint, MeshContext } from '../../xds/context/mesh-context.js';
import { edsCluster } from '../../xds/generate/clusters.js';
import { canonical } from '../../xds/context/carried-memo.js';
import { memoizedForContext } from '../../xds/generate/context-memo.js';
import { clusterLoadAssignment, type EndpointsReader } from '../../xds/generate/endpoints.js';
import { meshClusterTls, outboundCluster } from '../../xds/generate/outbound-proxy-generator.js';
import { serviceProtocol } from '../../xds/context/mesh-context.js';
import { grpcClientTls } from '../../xds/generate/proxyless-grpc-generator.js';
import type { ProtoJson } from '../../xds/protocol/proto-json.js';
import { CLUSTER_TYPE_URL, ENDPOINT_TYPE_URL, LISTENER_TYPE_URL, ROUTE_TYPE_URL } from '../../xds/protocol/type-urls.js';
import type { BackendRef } from './backend-ref.js';
import type { EnvoyResources } from './envoy-resources.js';
import type { FieldsSet } from './shared-edits.js';

/** One share of a route's traffic: the cluster and its weight. */
export interface Split {
  cluster: string;
  weight: number;
}

/** Kuma's `tags.DestinationClusterName`: the service alone, or `<service>-<16 hex>` over its sorted tags (the service tag included). */
export function destinationClusterName(tags: Tags): string {
  const service = tags[SERVICE_TAG]!;
  const keys = Object.keys(tags).sort();
  if (keys.length === 1) return service;
  const hash = createHash('sha256');
  for (const key of keys) hash.update(key).update(tags[key]!);
  return `${service}-${hash.digest('hex').slice(0, 16)}`;
}

/** Which destination protocols a split accepts: an HTTP route only HTTP-based services (Kuma's MakeHTTPSplit), a TCP route any. */
export type SplitKind = 'http' | 'tcp';

const HTTP_BASED: readonly Protocol[] = ['http', 'http2', 'grpc'];

interface ClusterInfo {
  service: string;
  tags: Tags;
  protocol: Protocol;
  origins: readonly PolicyOrigin[];
}

/**
 * Collects the clusters one proxy's routes use (Kuma's ServicesAccumulator with its cluster
 * cache), then puts the ones the base generator did not make, with their endpoints.
 */
export class RouteClusters {
  readonly #clusters = new Map<string, ClusterInfo>();

  constructor(
    private readonly context: MeshContext,
    private readonly reader: EndpointsReader,
  ) {}

  /**
   * The split for a backendRef, or undefined when Kuma leaves it out: weight 0, a destination of
   * the wrong protocol, or a real resource (MeshService by port or section, MeshExternalService,
   * MeshMultiZoneService), which a meshdesk mesh does not have.
   */
  split(ref: BackendRef, kind: SplitKind, origins: readonly PolicyOrigin[]): Split | undefined {
    const weight = ref.weight ?? 1;
    if (weight === 0 || !isServiceTagRef(ref)) return undefined;
    const service = ref.name!;
    const protocol = serviceProtocol(this.context, service);
    if (kind === 'http' && !HTTP_BASED.includes(protocol)) return undefined;
    const tags = { ...(ref.kind === 'MeshServiceSubset' ? ref.tags : undefined), [SERVICE_TAG]: service };
    const cluster = destinationClusterName(tags);
    if (!this.#clusters.has(cluster)) this.#clusters.set(cluster, { service, tags, protocol, origins });
    return { cluster, weight };
  }

  /** Collects the clusters `other` collected: those of routes derived once for every proxy (see `derived`). */
  addFrom(other: RouteClusters): void {
    for (const [name, info] of other.#clusters) if (!this.#clusters.has(name)) this.#clusters.set(name, info);
  }

  /**
   * Adds every collected cluster that is not there yet, and its endpoints (only those with the
   * subset's tags): made once per context and cluster name, the same objects for every proxy.
   */
  putInto(resources: EnvoyResources): void {
    const made = memoizedForContext(this.context, `route-clusters:${this.reader}`, () => new Map<string, { cluster: ProtoJson; endpoints: ProtoJson }>());
    for (const [name, { service, tags, protocol, origins }] of this.#clusters) {
      if (resources.get(CLUSTER_TYPE_URL, name) !== undefined) continue;
      // Read by every proxy, made by the first: each proxy's run depends on these endpoints (plugin-replay.ts).
      const endpoints = resources.endpointsOf(service);
      let cluster = made.get(name);
      if (cluster === undefined) {
        // The objects of the mesh's previous context when equal: later plugins' edits of them are found again.
        cluster = {
          cluster: canonical(this.context, CLUSTER_TYPE_URL, this.#cluster(name, service, tags, protocol)),
          endpoints: canonical(this.context, ENDPOINT_TYPE_URL, this.#endpoints(name, tags, endpoints)),
        };
        made.set(name, cluster);
      }
      const set = [{ path: '', origins }];
      resources.put(CLUSTER_TYPE_URL, name, cluster.cluster, set);
      resources.put(ENDPOINT_TYPE_URL, name, cluster.endpoints, set);
    }
  }

  #cluster(name: string, service: string, tags: Tags, protocol: Protocol): ProtoJson {
    // A mesh cluster: with mTLS on, it dials its service's identity (the route's subset in Envoy's SNI).
    const { [SERVICE_TAG]: _service, ...subsetTags } = tags;
    return this.reader === 'grpc'
      ? { ...edsCluster(name), ...grpcClientTls(this.context, service) }
      : { ...outboundCluster(name, protocol), ...meshClusterTls(this.context.mesh, service, subsetTags) };
  }

  /** The cluster's endpoints of its service's `all`: those with the subset's tags (all of them for the service's own cluster). */
  #endpoints(name: string, tags: Tags, all: readonly Endpoint[]): ProtoJson {
    const subset = all.filter((endpoint) => Object.entries(tags).every(([key, value]) => endpoint.tags[key] === value));
    return clusterLoadAssignment(name, subset, this.context.mesh.meta.name, this.reader);
  }
}

/** A backendRef by `kuma.io/service` (Kuma's legacy backendRef), the only kind a meshdesk mesh can resolve. */
export function isServiceTagRef(ref: BackendRef): boolean {
  if (!ref.name) return false;
  if (ref.kind === 'MeshServiceSubset') return true;
  return ref.kind === 'MeshService' && ref.port === undefined && ref.sectionName === undefined && ref.labels === undefined;
}

/**
 * A route plugin's rerouting of a proxy's outbounds: the listeners (or gRPC route configurations)
 * it writes, then the clusters among the rerouted services' own that no listener or route sends to
 * any more, removed (Kuma's route plugins generate only the clusters their routes use). What every
 * listener and route sends to is listed before the first write: a listing after the run's own
 * writes would be a read no recording can check, and the run would never be replayed.
 */
export class Rerouting {
  /** The clusters each listener and route configuration sends to, by type and name. */
  #users: Map<string, ReadonlySet<string>> | undefined;
  readonly #services: string[] = [];

  /** Puts the rerouted listener or route configuration of `service`. */
  put(resources: EnvoyResources, typeUrl: typeof LISTENER_TYPE_URL | typeof ROUTE_TYPE_URL, name: string, resource: ProtoJson, set: FieldsSet, service: string): void {
    this.#users ??= clusterUsers(resources);
    this.#users.set(`${typeUrl}\n${name}`, clusterNamesOf(resource));
    resources.put(typeUrl, name, resource, set);
    this.#services.push(service);
  }

  /** Removes the rerouted services' clusters (and their endpoints) that nothing sends to any more. */
  removeUnusedClusters(resources: EnvoyResources): void {
    if (this.#users === undefined) return;
    const used = new Set<string>();
    for (const names of this.#users.values()) for (const name of names) used.add(name);
    for (const name of this.#services) {
      if (used.has(name)) continue;
      resources.remove(CLUSTER_TYPE_URL, name);
      resources.remove(ENDPOINT_TYPE_URL, name);
    }
  }
}

function clusterUsers(resources: EnvoyResources): Map<string, ReadonlySet<string>> {
  const users = new Map<string, ReadonlySet<string>>();
  for (const typeUrl of [LISTENER_TYPE_URL, ROUTE_TYPE_URL] as const) {
    for (const { name, resource } of resources.list(typeUrl)) users.set(`${typeUrl}\n${name}`, clusterNamesOf(resource));
  }
  return users;
}

/** By (immutable, shared) resource object: a listener's walk is done once, not once per proxy. */
const clusterNames = new WeakMap<ProtoJson, ReadonlySet<string>>();

function clusterNamesOf(resource: ProtoJson): ReadonlySet<string> {
  let names = clusterNames.get(resource);
  if (names === undefined) {
    const collected = new Set<string>();
    collectClusterNames(resource, collected);
    clusterNames.set(resource, (names = collected));
  }
  return names;
}

/** Cluster names a listener or route configuration sends to: `cluster` fields and weighted clusters' names. */
function collectClusterNames(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) collectClusterNames(item, into);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === 'cluster' && typeof child === 'string') into.add(child);
    else if (key === 'weighted_clusters') {
      for (const cluster of (child as { clusters?: { name: string }[] }).clusters ?? []) into.add(cluster.name);
    } else collectClusterNames(child, into);
  }
}
