import type { PolicyResource } from '../../policies/core/policy.js';
import type { DataplaneResource, MeshResource, Protocol, Tags } from '../../../shared/resources.js';

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
  /** Every targetRef policy of the mesh, by type then name. */
  policies: readonly PolicyResource[];
  hash: string;
}
