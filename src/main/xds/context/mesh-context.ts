import { isShadow } from '../../../shared/policy-effect.js';
import type { PolicyResource } from '../../policies/core/policy.js';
import type { PolicyType } from '../../../shared/policy-types.js';
import type { DataplaneResource, MeshResource, Protocol, Tags } from '../../../shared/resources.js';
import type { MeshDestinations } from '../../meshservice/destinations.js';

/** One reachable instance of a service: a Dataplane inbound tagged with that service. */
export interface Endpoint {
  /** Name of the Dataplane that owns the inbound. */
  dataplane: string;
  address: string;
  port: number;
  tags: Tags;
  /** The labels of the Dataplane that owns the inbound. */
  labels: Readonly<Record<string, string>>;
  /** Kuma's locality zone of the endpoint; none for a Dataplane that names no zone. */
  zone?: string;
  protocol: Protocol;
  weight: number;
}

/**
 * Everything needed to generate config for the proxies of one mesh (Kuma's MeshContext).
 * Built from the cached manager; `hash` covers every input, so an unchanged hash means
 * nothing any proxy of this mesh gets can have changed.
 */
export interface MeshContext {
  mesh: MeshResource;
  dataplanesByName: ReadonlyMap<string, DataplaneResource>;
  endpointsByService: ReadonlyMap<string, readonly Endpoint[]>;
  /**
   * The protocol each service speaks, by its endpoints (serviceProtocol): apart from them, since
   * most config depends on the protocol, not on where the endpoints are (a plugin that reads only
   * this is replayed when an endpoint comes or goes: plugin-replay.ts).
   */
  protocolByService: ReadonlyMap<string, Protocol>;
  /** Every targetRef policy of the mesh that applies, by type then name (shadow ones are not among them). */
  policies: readonly PolicyResource[];
  /**
   * The mesh's shadow policies (`kuma.io/effect: shadow`), by type then name: stored and shown, never
   * matched, so no generator or plugin sees them (Kuma's matchers skip them). A context built with
   * `shadow: 'apply'` (the shadow view, `policies/shadow/`) has them among `policies` too.
   */
  shadowPolicies: readonly PolicyResource[];
  /** The same policies grouped by type, each group by name: what a reader of one type's policies reads. */
  policiesByType: ReadonlyMap<PolicyType, readonly PolicyResource[]>;
  /**
   * The mesh's MeshServices, MeshExternalServices and MeshMultiZoneServices, each list by name. The
   * outbound step reads the MeshServices (xds/generate/meshservice/). The hash covers what configuration can
   * depend on (meshservice/destinations.ts), so a status count rewritten regenerates nothing.
   */
  destinations: MeshDestinations;
  hash: string;
}

/** One object for every type without policies: readers canonicalize what they get (plugin-replay.ts, proxy-rules.ts) once per object. */
const NO_POLICIES: readonly PolicyResource[] = Object.freeze([]);

/** The mesh's policies of one type, by name. */
export function policiesOf(context: Pick<MeshContext, 'policiesByType'>, type: PolicyType): readonly PolicyResource[] {
  return context.policiesByType.get(type) ?? NO_POLICIES;
}

/**
 * A service speaks the protocol its endpoints declare. When they disagree, or there are none yet,
 * only tcp is safe for all of them (Kuma does the same).
 */
export function serviceProtocol(context: Pick<MeshContext, 'protocolByService'>, service: string): Protocol {
  return context.protocolByService.get(service) ?? 'tcp';
}

/** Every policy of the context, live and shadow (each once, also in a context with its shadow policies applied). */
export function everyPolicy(context: Pick<MeshContext, 'policies' | 'shadowPolicies'>): PolicyResource[] {
  const live = context.policies.filter((policy) => !isShadow(policy.meta.labels));
  return [...live, ...context.shadowPolicies];
}
