// Which policies select a proxy, and in which order they merge (Kuma's matchers/dataplane.go).
import { SERVICE_TAG, type DataplaneResource, type Inbound, type Tags } from '../../../shared/resources.js';
import type { PolicyResource } from './policy.js';
import { inboundKey, type InboundKey } from './rules.js';
import { TARGET_REF_KIND_RANK, type TargetRef } from './target-ref.js';

const MESH: TargetRef = { kind: 'Mesh' };

/** The policy's top-level targetRef; an omitted one is Mesh. */
export function topLevelRef(policy: PolicyResource): TargetRef {
  return policy.spec.targetRef ?? MESH;
}

/** Why a policy selects nothing although it could: shown as a warning of the proxy's rules (Kuma's MatchedPolicies warnings). */
export class TargetRefError extends Error {}

/** What a policy's top-level targetRef selects of one proxy. */
export interface Selection {
  /** The inbounds, as `address:port`: the keys of the proxy's `from` and inbound rules. */
  inbounds: InboundKey[];
  /**
   * The proxy is selected though it has no inbound to be selected by: a delegated gateway, by its
   * `networking.gateway.tags` (as Kuma), or a sidecar without inbounds (a pure client, which Kuma
   * accepts but no policy then selects; meshdesk selects it by what needs no tag: Mesh, a MeshSubset
   * without tags, a Dataplane ref without sectionName, so that its outbound policies reach it).
   */
  proxyItself: boolean;
}

const NOTHING: Selection = { inbounds: [], proxyItself: false };

/** True when the policy applies to the proxy at all. */
export function selectsProxy({ inbounds, proxyItself }: Selection): boolean {
  return inbounds.length > 0 || proxyItself;
}

/**
 * What the policy's top-level targetRef selects of `dataplane` (Kuma's DppSelectedByPolicy). A
 * policy that selects none of a proxy's inbounds does not apply to it, as in Kuma, unless it
 * selects the proxy itself (see Selection). `routes` are the mesh's MeshHTTPRoutes, which a top-level
 * `MeshHTTPRoute` ref selects through. Throws TargetRefError when it names a route that does not exist.
 */
export function selectedInbounds(policy: PolicyResource, dataplane: DataplaneResource, routes: readonly PolicyResource[]): Selection {
  if (!inPolicyZone(policy, dataplane) || !inPolicyNamespace(policy, dataplane)) return NOTHING;
  const ref = topLevelRef(policy);
  switch (ref.kind) {
    case 'Mesh':
      return supportsProxyType(ref, dataplane) ? selectedByTags(dataplane, {}) : NOTHING;
    case 'MeshSubset':
      return supportsProxyType(ref, dataplane) ? selectedByTags(dataplane, ref.tags ?? {}) : NOTHING;
    case 'MeshService':
      return selectedByTags(dataplane, { [SERVICE_TAG]: ref.name ?? '' });
    case 'MeshServiceSubset':
      return selectedByTags(dataplane, { ...ref.tags, [SERVICE_TAG]: ref.name ?? '' });
    case 'Dataplane':
      return selectsDataplane(ref, policy, dataplane)
        ? { inbounds: inboundsInSection(dataplane, ref.sectionName), proxyItself: isDelegatedGateway(dataplane) || (isInboundlessSidecar(dataplane) && !ref.sectionName) }
        : NOTHING;
    case 'MeshHTTPRoute': {
      const route = referencedRoute(policy, ref.name, routes);
      if (!route) throw new TargetRefError(`couldn't resolve MeshHTTPRoute targetRef with name '${ref.name ?? ''}'`);
      return selectedInbounds(route, dataplane, []);
    }
    default:
      // MeshGateway selects builtin gateways, which meshdesk does not run; the other kinds are not top-level kinds.
      return NOTHING;
  }
}

/**
 * Kuma's dppSelectedByZone: a policy created in a zone (`kuma.io/origin: zone` with `kuma.io/zone`)
 * selects only that zone's proxies; a producer policy, and any policy for a proxy without a zone
 * origin, select everywhere.
 */
function inPolicyZone(policy: PolicyResource, dataplane: DataplaneResource): boolean {
  if (policyRole(policy) === 'producer') return true;
  const labels = dataplane.meta.labels;
  if (labels[ORIGIN_LABEL] === undefined || labels[ORIGIN_LABEL] === 'global') return true;
  const zone = policy.meta.labels[ZONE_LABEL];
  if (policy.meta.labels[ORIGIN_LABEL] !== 'zone' || zone === undefined) return true;
  return labels[ORIGIN_LABEL] === 'zone' && (labels[ZONE_LABEL] === undefined || labels[ZONE_LABEL] === zone);
}

/** Kuma's dppSelectedByNamespace: a consumer or workload-owner policy selects only proxies of its own namespace. */
function inPolicyNamespace(policy: PolicyResource, dataplane: DataplaneResource): boolean {
  const role = policyRole(policy);
  if (role !== 'consumer' && role !== 'workload-owner') return true;
  const namespace = policy.meta.labels[NAMESPACE_LABEL];
  return namespace !== undefined && namespace === dataplane.meta.labels[NAMESPACE_LABEL];
}

function policyRole(policy: PolicyResource): string {
  return policy.meta.labels[ROLE_LABEL] || 'system';
}

/**
 * The MeshHTTPRoute a policy's targetRef names (Kuma's IsReferenced): by name in the policy's mesh,
 * or by display name (a route synced from Kubernetes is stored under a hashed name).
 */
export function referencedRoute(policy: PolicyResource, name: string | undefined, routes: readonly PolicyResource[]): PolicyResource | undefined {
  return routes.find((route) => route.meta.mesh === policy.meta.mesh && (route.meta.name === name || displayName(route) === name));
}

/** Kuma's proxy types: a Dataplane with `networking.gateway` is a Gateway, any other a Sidecar; no list means both. */
function supportsProxyType(ref: TargetRef, dataplane: DataplaneResource): boolean {
  if (!ref.proxyTypes || ref.proxyTypes.length === 0) return true;
  return ref.proxyTypes.includes(dataplane.spec.networking.gateway ? 'Gateway' : 'Sidecar');
}

/** Dataplane refs: all of them, one by name, or those whose labels include the ref's labels. */
function selectsDataplane(ref: TargetRef, policy: PolicyResource, dataplane: DataplaneResource): boolean {
  if (!ref.name && !ref.labels) return true;
  if (ref.name) return ref.name === dataplane.meta.name && (ref.mesh ?? policy.meta.mesh) === dataplane.meta.mesh;
  return Object.entries(ref.labels ?? {}).every(([label, value]) => dataplane.meta.labels[label] === value);
}

function selectedByTags(dataplane: DataplaneResource, selector: Tags): Selection {
  const matches = (tags: Tags | undefined) => Object.entries(selector).every(([key, value]) => tags?.[key] === value);
  return {
    inbounds: inbounds(dataplane)
      .filter((inbound) => matches(inbound.tags))
      .map((inbound) => inboundKeyOf(dataplane, inbound)),
    proxyItself:
      (isDelegatedGateway(dataplane) && matches(dataplane.spec.networking.gateway?.tags)) ||
      (isInboundlessSidecar(dataplane) && Object.keys(selector).length === 0),
  };
}

function isInboundlessSidecar(dataplane: DataplaneResource): boolean {
  return dataplane.spec.networking.gateway === undefined && inbounds(dataplane).length === 0;
}

function isDelegatedGateway(dataplane: DataplaneResource): boolean {
  const { gateway } = dataplane.spec.networking;
  return gateway !== undefined && (gateway.type ?? 'DELEGATED') === 'DELEGATED';
}

function inboundsInSection(dataplane: DataplaneResource, sectionName: string | undefined): InboundKey[] {
  return inbounds(dataplane)
    .filter((inbound) => !sectionName || inboundSectionName(inbound) === sectionName)
    .map((inbound) => inboundKeyOf(dataplane, inbound));
}

function inbounds(dataplane: DataplaneResource): readonly Inbound[] {
  return dataplane.spec.networking.inbound ?? [];
}

/** What a `sectionName` names an inbound by: its `name`, or its port written as a string when it has none. */
export function inboundSectionName(inbound: Inbound): string {
  return inbound.name || String(inbound.port);
}

/** The key rules are kept under for an inbound (Kuma's InboundListener: the address Envoy listens on, and the port). */
export function inboundKeyOf(dataplane: DataplaneResource, inbound: Inbound): InboundKey {
  return inboundKey(inbound.address ?? dataplane.spec.networking.address, inbound.port);
}

// Kuma's ResourceOrigin and PolicyRole orders (api/mesh/v1alpha1/dataplane_helpers.go); a value
// outside them ranks 0, first, as Go's map lookup of a missing key gives.
const ORIGIN_RANK: Readonly<Record<string, number>> = { global: 1, '': 2, zone: 3 };
const ROLE_RANK: Readonly<Record<string, number>> = { system: 1, producer: 2, consumer: 3, 'workload-owner': 4 };

const ORIGIN_LABEL = 'kuma.io/origin';
const ROLE_LABEL = 'kuma.io/policy-role';
const ZONE_LABEL = 'kuma.io/zone';
const NAMESPACE_LABEL = 'k8s.kuma.io/namespace';
const DISPLAY_NAME_LABEL = 'kuma.io/display-name';

/**
 * Kuma's SortByTargetRef: least specific first, so that merging in this order lets the more
 * specific policy win. Top-level kind; among Dataplane refs labels before name and no sectionName
 * before sectionName; origin; MeshGateway refs by tag count; role; then display name DEScending,
 * so that of two otherwise equal policies the alphabetically smaller name merges last and wins.
 */
export function compareByTargetRef(a: PolicyResource, b: PolicyResource): number {
  const refA = topLevelRef(a);
  const refB = topLevelRef(b);
  return (
    TARGET_REF_KIND_RANK[refA.kind] - TARGET_REF_KIND_RANK[refB.kind] ||
    compareDataplaneRefs(refA, refB) ||
    rank(ORIGIN_RANK, a.meta.labels[ORIGIN_LABEL] ?? '') - rank(ORIGIN_RANK, b.meta.labels[ORIGIN_LABEL] ?? '') ||
    (refA.kind === 'MeshGateway' ? Object.keys(refA.tags ?? {}).length - Object.keys(refB.tags ?? {}).length : 0) ||
    rank(ROLE_RANK, policyRole(a)) - rank(ROLE_RANK, policyRole(b)) ||
    compareStrings(displayName(b), displayName(a))
  );
}

/** Sorted by compareByTargetRef; the input is left as it is. */
export function sortByTargetRef<P extends PolicyResource>(policies: readonly P[]): P[] {
  return [...policies].sort(compareByTargetRef);
}

function compareDataplaneRefs(a: TargetRef, b: TargetRef): number {
  if (a.kind !== 'Dataplane' || b.kind !== 'Dataplane') return 0;
  if (a.name && b.labels) return 1;
  if (a.labels && b.name) return -1;
  return Number(Boolean(a.sectionName)) - Number(Boolean(b.sectionName));
}

function rank(ranks: Readonly<Record<string, number>>, value: string): number {
  return ranks[value] ?? 0;
}

/** Kuma sorts by the display name label when there is one (a policy synced from Kubernetes), else by name. */
export function displayName(policy: PolicyResource): string {
  return policy.meta.labels[DISPLAY_NAME_LABEL] || policy.meta.name;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
