// MeshTCPRoute's types (Kuma's pkg/plugins/policies/meshtcproute/api/v1alpha1/meshtcproute.go).
import type { BackendRef } from '../core/backend-ref.js';

/** One rule of a `to` item: where its connections go. */
export interface TcpRouteRule {
  default: { backendRefs?: BackendRef[] };
}

/**
 * The conf of a MeshTCPRoute `to` rule (Kuma's `To.GetDefault`): the item's FIRST rule only, or,
 * for an item without rules, a route to the item's own targetRef with weight 1; merged between
 * items as a JSON merge patch (a later `backendRefs` list replaces an earlier one).
 */
export type MeshTCPRouteConf = TcpRouteRule;
