import type { Tags } from '../../../shared/resources.js';

/** The kinds a Kuma 2.14 targetRef may name (api/common/v1alpha1/targetref.go). */
export const TARGET_REF_KINDS = [
  'Mesh',
  'MeshSubset',
  'MeshGateway',
  'MeshService',
  'MeshExternalService',
  'MeshMultiZoneService',
  'MeshServiceSubset',
  'MeshHTTPRoute',
  'Dataplane',
] as const;

export type TargetRefKind = (typeof TARGET_REF_KINDS)[number];

/** A targetRef in Kuma's universal format. Which fields a kind takes is checked by the policy validators. */
export interface TargetRef {
  kind: TargetRefKind;
  name?: string;
  namespace?: string;
  mesh?: string;
  /** MeshSubset, MeshServiceSubset: the tags selected proxies (or their inbounds) carry. */
  tags?: Tags;
  /** Dataplane (and real resources): select by labels instead of by name. */
  labels?: Record<string, string>;
  /** Dataplane: one inbound, by its `name`, or its port written as a string when it has none. */
  sectionName?: string;
  /** Mesh, MeshSubset: only these proxy types. An absent list includes gateways. */
  proxyTypes?: ('Sidecar' | 'Gateway')[];
}

/** How specific a top-level kind is: Kuma sorts matched policies by this, least specific first. */
export const TARGET_REF_KIND_RANK: { readonly [K in TargetRefKind]: number } = {
  Mesh: 0,
  Dataplane: 1,
  MeshSubset: 2,
  MeshGateway: 3,
  MeshService: 4,
  MeshExternalService: 5,
  MeshMultiZoneService: 6,
  MeshServiceSubset: 7,
  MeshHTTPRoute: 8,
};
