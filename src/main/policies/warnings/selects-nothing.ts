// A policy whose targetRef, `to` item or route backendRef selects nothing in its mesh right now: Kuma
// stores it without a word and it does nothing, which reads like a policy that works. meshdesk says
// so (a warning, never a refusal: the Dataplanes may come later). Decided by the generator's own
// matching (matching.ts, route-clusters.ts) over the mesh's MeshContext.
import { SERVICE_TAG, type Tags } from '../../../shared/resources.js';
import { policiesOf, type MeshContext } from '../../xds/context/mesh-context.js';
import type { BackendRef } from '../core/backend-ref.js';
import { TargetRefError, referencedRoute, selectedInbounds, selectsProxy } from '../core/matching.js';
import type { PolicyResource } from '../core/policy.js';
import { isServiceTagRef } from '../core/route-clusters.js';
import type { TargetRef } from '../core/target-ref.js';

/** A reference of a policy that selects nothing: where it is, and a sentence saying so that starts with that field. */
export interface EmptyReference {
  field: string;
  message: string;
}

/** Every part of `policy` that selects nothing in `context`'s mesh, one sentence each naming the field. */
export function selectsNothingWarnings(policy: PolicyResource, context: MeshContext): string[] {
  return emptyReferences(policy, context).map((reference) => reference.message);
}

/** Every reference of `policy` that selects nothing in `context`'s mesh (the analysis's MD0001 reads these). */
export function emptyReferences(policy: PolicyResource, context: MeshContext): EmptyReference[] {
  return [...topLevelWarnings(policy, context), ...toWarnings(policy, context)];
}

function reference(field: string, rest: string): EmptyReference {
  return { field, message: `${field}${rest}` };
}

/**
 * The top-level targetRef, when it selects by something (a plain `Mesh` selects every proxy there
 * is, and names nothing that could be wrong) and no Dataplane of the mesh is selected by it.
 */
function topLevelWarnings(policy: PolicyResource, context: MeshContext): EmptyReference[] {
  const ref = policy.spec.targetRef;
  if (ref === undefined || ref.kind === 'MeshGateway' || (ref.kind === 'Mesh' && !ref.proxyTypes?.length)) return [];
  const routes = policiesOf(context, 'MeshHTTPRoute');
  try {
    for (const dataplane of context.dataplanesByName.values()) {
      if (selectsProxy(selectedInbounds(policy, dataplane, routes))) return [];
    }
  } catch (error) {
    if (!(error instanceof TargetRefError)) throw error;
    return [reference('spec.targetRef', `: ${error.message}: the policy applies to no proxy`)];
  }
  const gatewaysOnly = ref.proxyTypes?.length && ref.proxyTypes.every((type) => type === 'Gateway');
  const why = gatewaysOnly ? 'meshdesk runs no builtin gateways, and no delegated gateway Dataplane matches' : 'the policy applies to no proxy until one matches';
  return [reference('spec.targetRef', ` ${describeRef(ref)} selects no Dataplane of mesh "${context.mesh.meta.name}": ${why}`)];
}

function toWarnings(policy: PolicyResource, context: MeshContext): EmptyReference[] {
  return (policy.spec.to ?? []).flatMap((item, index) => {
    const path = `spec.to[${index}]`;
    const own = destinationWarning(`${path}.targetRef`, item.targetRef, policy, context);
    const backends = (item.rules ?? []).flatMap((rule, ruleIndex) => {
      const backendRefs = (rule as { default?: { backendRefs?: BackendRef[] } }).default?.backendRefs ?? [];
      return backendRefs.flatMap((backendRef, refIndex) =>
        destinationWarning(`${path}.rules[${ruleIndex}].default.backendRefs[${refIndex}]`, backendRef, policy, context),
      );
    });
    return [...own, ...backends];
  });
}

/**
 * A destination by `kuma.io/service` (a MeshService or MeshServiceSubset by name, a MeshSubset by
 * tags) that no Dataplane provides (no inbound with those tags) nor calls (no outbound to it), or a
 * MeshHTTPRoute that does not exist. Real-resource refs (MeshService by labels, port or section,
 * MeshExternalService, MeshMultiZoneService) are not judged here: a meshdesk mesh has none of those resources.
 */
function destinationWarning(field: string, ref: TargetRef, policy: PolicyResource, context: MeshContext): EmptyReference[] {
  const mesh = context.mesh.meta.name;
  if (ref.kind === 'MeshHTTPRoute') {
    return referencedRoute(policy, ref.name, policiesOf(context, 'MeshHTTPRoute')) ? [] : [reference(field, ` names MeshHTTPRoute "${ref.name ?? ''}", which does not exist in mesh "${mesh}"`)];
  }
  if (ref.kind === 'MeshSubset') {
    const tags = ref.tags ?? {};
    return Object.keys(tags).length === 0 || hasEndpointWith(context, tags) ? [] : [reference(field, ` ${describeRef(ref)} matches no inbound of any Dataplane of mesh "${mesh}"`)];
  }
  if ((ref.kind !== 'MeshService' && ref.kind !== 'MeshServiceSubset') || !isServiceTagRef(ref)) return [];
  const service = ref.name!;
  if (!isKnownService(context, service)) {
    return [reference(field, ` names service "${service}", which no Dataplane of mesh "${mesh}" provides or calls (no inbound or outbound tagged ${SERVICE_TAG}: ${service})`)];
  }
  if (ref.kind === 'MeshServiceSubset' && !hasEndpointWith(context, { ...ref.tags, [SERVICE_TAG]: service })) {
    return [reference(field, ` ${describeRef(ref)} matches no inbound of service "${service}" in mesh "${mesh}"`)];
  }
  return [];
}

function isKnownService(context: MeshContext, service: string): boolean {
  if (context.endpointsByService.has(service)) return true;
  for (const dataplane of context.dataplanesByName.values()) {
    if (dataplane.spec.networking.outbound?.some((outbound) => outbound.tags?.[SERVICE_TAG] === service)) return true;
  }
  return false;
}

/** An inbound of the mesh with every one of `tags` (the endpoints of the services are the mesh's tagged inbounds). */
function hasEndpointWith(context: MeshContext, tags: Tags): boolean {
  for (const endpoints of context.endpointsByService.values()) {
    if (endpoints.some((endpoint) => Object.entries(tags).every(([key, value]) => endpoint.tags[key] === value))) return true;
  }
  return false;
}

/** `{kind: MeshSubset, tags: {version: v2}}`: the ref as written, in short. */
function describeRef(ref: TargetRef): string {
  const parts = [`kind: ${ref.kind}`];
  if (ref.name !== undefined) parts.push(`name: ${ref.name}`);
  if (ref.tags !== undefined) parts.push(`tags: {${Object.entries(ref.tags).map(([key, value]) => `${key}: ${value}`).join(', ')}}`);
  if (ref.labels !== undefined) parts.push(`labels: {${Object.entries(ref.labels).map(([key, value]) => `${key}: ${value}`).join(', ')}}`);
  if (ref.sectionName !== undefined) parts.push(`sectionName: ${ref.sectionName}`);
  if (ref.proxyTypes !== undefined) parts.push(`proxyTypes: [${ref.proxyTypes.join(', ')}]`);
  return `{${parts.join(', ')}}`;
}
