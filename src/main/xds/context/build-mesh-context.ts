import { createHash } from 'node:crypto';
import {
  PROTOCOLS,
  PROTOCOL_TAG,
  SERVICE_TAG,
  type DataplaneResource,
  type Inbound,
  type MeshResource,
  type Protocol,
  type Tags,
} from '../../../shared/resources.js';
import type { PolicyResource } from '../../policies/core/policy.js';
import type { PolicyType } from '../../../shared/policy-types.js';
import { isShadow } from '../../../shared/policy-effect.js';
import { canonicalJson } from '../../resources/canonical-json.js';
import { ZONE_TAG } from '../../resources/computed-labels.js';
import { configurationInput, NO_DESTINATIONS, type DestinationResource, type MeshDestinations } from '../../meshservice/destinations.js';
import type { Endpoint, MeshContext } from './mesh-context.js';
import { withZoneTags } from './zone-tag.js';

/**
 * Builds the MeshContext of one mesh from its Mesh, every Dataplane and every policy in it. Pure:
 * the same inputs in any order give an equal context with an equal hash. A caller that has just
 * computed `hashMeshContextInputs` of the same inputs passes it, sparing a second walk of every spec.
 * With `zone`, the control plane's zone (a running meshdesk's is ZONE_NAME), each Dataplane's inbounds
 * are tagged with it as Kuma's Dataplane manager tags them on write; without, they are taken as Kuma's
 * generator tests hand them in, unwritten. Shadow policies are kept apart (`shadowPolicies`) unless
 * `shadow` is `'apply'`, which makes them live too: what Kuma's inspection builds with `shadow=true`.
 */
export function buildMeshContext(
  mesh: MeshResource,
  dataplanes: readonly DataplaneResource[],
  {
    policies = [],
    destinations = NO_DESTINATIONS,
    hash = hashMeshContextInputs(mesh, dataplanes, policies, destinations),
    zone,
    shadow = 'skip',
  }: { policies?: readonly PolicyResource[]; destinations?: MeshDestinations; hash?: string; zone?: string; shadow?: 'skip' | 'apply' } = {},
): MeshContext {
  const sorted = sortedByName(dataplanes).map((dataplane) => (zone === undefined ? dataplane : withZoneTags(dataplane, mesh, zone)));
  for (const dataplane of sorted) {
    if (dataplane.meta.mesh !== mesh.meta.name) {
      throw new Error(
        `cannot build the context of mesh "${mesh.meta.name}": Dataplane "${dataplane.meta.name}" belongs to mesh "${dataplane.meta.mesh}"`,
      );
    }
  }
  const endpoints = endpointsByService(sorted);
  return {
    mesh,
    dataplanesByName: new Map(sorted.map((dataplane) => [dataplane.meta.name, dataplane])),
    endpointsByService: endpoints,
    protocolByService: new Map([...endpoints].map(([service, each]) => [service, protocolOfEndpoints(each)])),
    ...policyParts(policies, shadow),
    destinations: {
      meshServices: sortedByName(destinations.meshServices),
      meshExternalServices: sortedByName(destinations.meshExternalServices),
      meshMultiZoneServices: sortedByName(destinations.meshMultiZoneServices),
    },
    hash,
  };
}

/** The policies by type then name, the shadow ones kept apart unless `shadow` is `'apply'`. */
function policyParts(policies: readonly PolicyResource[], shadow: 'skip' | 'apply'): Pick<MeshContext, 'policies' | 'shadowPolicies' | 'policiesByType'> {
  const sortedPolicies = [...policies].sort((a, b) => compareStrings(a.type, b.type) || compareStrings(a.meta.name, b.meta.name));
  const shadowPolicies = sortedPolicies.filter((policy) => isShadow(policy.meta.labels));
  const live = shadow === 'apply' || shadowPolicies.length === 0 ? sortedPolicies : sortedPolicies.filter((policy) => !isShadow(policy.meta.labels));
  return { policies: live, shadowPolicies, policiesByType: byType(live) };
}

/**
 * The context with other policies (shadow ones kept apart) and the same Mesh and Dataplanes: what a
 * preview or an analysis asks "what if" with. The Dataplane side is shared, not rebuilt, and the hash is derived from the
 * context's own and the new policies', so different content still means a different hash.
 */
export function withPolicies(context: MeshContext, policies: readonly PolicyResource[]): MeshContext {
  const hash = createHash('sha256').update(context.hash).update('\npolicies replaced');
  for (const policy of policies) {
    const { name, version, labels } = policy.meta;
    hash.update('\n').update(canonicalJson({ type: policy.type, name, version, labels, spec: policy.spec }));
  }
  return { ...context, ...policyParts(policies, 'skip'), hash: hash.digest('hex') };
}

/**
 * The hash `buildMeshContext` puts in the context, without building it: the cache layer can
 * compare it with the cached context's hash and keep that context when they are equal.
 *
 * It covers each resource's name, version and spec, and a Dataplane's labels (its endpoints carry
 * them). The version alone would catch every update (the store bumps it on every write), but a
 * Dataplane that is deleted and created again, as a reconnecting proxy does, starts again at
 * version 1 with possibly different contents. Times are left out: no configuration depends on them.
 */
export function hashMeshContextInputs(
  mesh: MeshResource,
  dataplanes: readonly DataplaneResource[],
  policies: readonly PolicyResource[] = [],
  destinations: MeshDestinations = NO_DESTINATIONS,
): string {
  const hash = createHash('sha256').update(canonicalJson({ name: mesh.meta.name, version: mesh.meta.version, spec: mesh.spec }));
  for (const dataplane of sortedByName(dataplanes)) hash.update('\n').update(dataplaneInput(dataplane));
  // Policies are few and small next to Dataplanes: serialized whole on every rebuild.
  for (const policy of policies) {
    const { name, version, labels } = policy.meta;
    hash.update('\n').update(canonicalJson({ type: policy.type, name, version, labels, spec: policy.spec }));
  }
  const lists: readonly (readonly DestinationResource[])[] = [destinations.meshServices, destinations.meshExternalServices, destinations.meshMultiZoneServices];
  for (const list of lists) {
    for (const destination of sortedByName(list)) hash.update('\n').update(canonicalJson(configurationInput(destination)));
  }
  return hash.digest('hex');
}

/**
 * A Dataplane's part of the hash, kept per resource object: the cached manager hands out the same
 * frozen object while a Dataplane is unchanged, so a rebuild only serializes the ones that changed.
 */
const dataplaneInputs = new WeakMap<DataplaneResource, string>();

function dataplaneInput(dataplane: DataplaneResource): string {
  let input = dataplaneInputs.get(dataplane);
  if (input === undefined) {
    const { name, version, labels } = dataplane.meta;
    input = canonicalJson({ name, version, labels, spec: dataplane.spec });
    // Only frozen resources cannot change behind the memo's back.
    if (Object.isFrozen(dataplane) && Object.isFrozen(dataplane.spec)) dataplaneInputs.set(dataplane, input);
  }
  return input;
}

/** One inbound of a Dataplane as the endpoint its callers reach, speaking `protocol`. */
export function inboundEndpoint(dataplane: DataplaneResource, inbound: Inbound, protocol: Protocol): Endpoint {
  const { networking } = dataplane.spec;
  const tags = inbound.tags ?? {};
  return {
    dataplane: dataplane.meta.name,
    // Kuma's DataplaneAdvertisedIP: what others reach, which may differ from where Envoy listens (NAT).
    address: networking.advertisedAddress ?? inbound.address ?? networking.address,
    port: inbound.port,
    tags,
    labels: dataplane.meta.labels,
    // Kuma's getZone: the inbound's zone tag, else its Dataplane's zone label.
    zone: tags[ZONE_TAG] ?? dataplane.meta.labels[ZONE_TAG],
    protocol,
    weight: 1,
  };
}

function endpointsByService(dataplanes: readonly DataplaneResource[]): Map<string, Endpoint[]> {
  const byService = new Map<string, Endpoint[]>();
  for (const dataplane of dataplanes) {
    const { networking } = dataplane.spec;
    for (const inbound of networking.inbound ?? []) {
      const tags = inbound.tags ?? {};
      const service = tags[SERVICE_TAG];
      if (service === undefined) continue; // a tags-less inbound (Kuma 2.14) names no service to reach
      const endpoints = byService.get(service) ?? [];
      endpoints.push(inboundEndpoint(dataplane, inbound, protocolFromTags(tags)));
      byService.set(service, endpoints);
    }
  }
  const services = [...byService.keys()].sort(compareStrings);
  return new Map(services.map((service) => [service, byService.get(service)!.sort(compareEndpoints)]));
}

/** The policies (sorted by type, then name) grouped by type, each group still by name. */
function byType(policies: readonly PolicyResource[]): Map<PolicyType, PolicyResource[]> {
  const groups = new Map<PolicyType, PolicyResource[]>();
  for (const policy of policies) {
    const group = groups.get(policy.type);
    if (group === undefined) groups.set(policy.type, [policy]);
    else group.push(policy);
  }
  return groups;
}

/** The one protocol all of a service's endpoints declare; tcp when they disagree (serviceProtocol). */
function protocolOfEndpoints(endpoints: readonly Endpoint[]): Protocol {
  const protocols = new Set(endpoints.map((endpoint) => endpoint.protocol));
  return protocols.size === 1 ? [...protocols][0]! : 'tcp';
}

/** The protocol an inbound's `kuma.io/protocol` tag declares; tcp when absent, as in Kuma. */
export function protocolFromTags(tags: Tags): Protocol {
  return PROTOCOLS.find((protocol) => protocol === tags[PROTOCOL_TAG]) ?? 'tcp';
}

function sortedByName<R extends { meta: { name: string } }>(resources: readonly R[]): R[] {
  return [...resources].sort((a, b) => compareStrings(a.meta.name, b.meta.name));
}

function compareEndpoints(a: Endpoint, b: Endpoint): number {
  return compareStrings(a.dataplane, b.dataplane) || compareStrings(a.address, b.address) || a.port - b.port;
}

/** Code-unit order, unlike localeCompare: the same on every machine and locale. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

