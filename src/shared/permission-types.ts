// The permission matrix (GET /meshes/{mesh}/_permissions): which service may call which, as the
// MeshTrafficPermission rules decide it, and where each decision is enforced. Types only: shared by main and renderer.
import type { PolicyOrigin } from './policy-types.js';

/** What the destination's proxy does with a caller: `shadow-denied` lets it through and logs it as denied. */
export type PermissionDecision = 'allowed' | 'denied' | 'shadow-denied';

/** One decision and what made it. */
export interface PermissionVerdict {
  decision: PermissionDecision;
  /**
   * The MeshTrafficPermission item that decided (`spec.from[0]`, `spec.rules[1].default.deny[0]`);
   * absent when no item did (no permission at all, a caller no item names, mTLS off).
   */
  origin?: PolicyOrigin;
  reason: string;
}

/** The decision at one destination inbound for the caller Dataplanes that share one set of tags. */
export interface PermissionPath {
  /** The destination Dataplane whose proxy enforces it, and its inbound (`address:port`). */
  dataplane: string;
  inbound: string;
  /** The caller service's Dataplanes this decision is for. */
  callers: string[];
  /** What happens now. */
  verdict: PermissionVerdict;
  /** With mTLS off (nothing enforced): what the rules will decide once it is on. */
  whenEnforced?: PermissionVerdict;
}

export interface PermissionCell {
  caller: string;
  destination: string;
  /** The decision of every path, or `mixed` when they differ (per destination inbound or caller tags). */
  decision: PermissionDecision | 'mixed';
  /** Every path of the cell: one per destination inbound and caller group. */
  pathCount: number;
  /** Up to 10 of them, in order: the first path of each distinct verdict, then the first others. */
  paths: PermissionPath[];
}

/** An RBAC filter in a proxy's generated config, located as the Config tree shows it. */
export interface RbacFilter {
  name: 'envoy.filters.network.rbac' | 'envoy.filters.http.rbac';
  /** Where in the listener, e.g. `filter_chains[1].filters[0].typed_config.http_filters[0]`. */
  path: string;
  /** The filter's typed config as the proxy was sent it. */
  config: unknown;
}

/** Where a destination inbound's decisions are enforced in its proxy's generated config. */
export interface InboundEnforcement {
  inbound: string;
  /** The inbound listener's name; absent when the config has none for this inbound. */
  listener?: string;
  filters: RbacFilter[];
  /** Why no filter is shown (not connected, no mTLS filter chain, no RBAC filter generated). */
  missing?: string;
}

export interface ProxyEnforcement {
  dataplane: string;
  proxyId: string;
  /** Whether the proxy has a generated configuration (is connected). */
  connected: boolean;
  inbounds: InboundEnforcement[];
}

export interface PermissionMatrixView {
  mesh: string;
  /** True when mTLS is on: the destinations' proxies check callers. */
  enforced: boolean;
  /** mTLS mode when on. */
  mode?: 'STRICT' | 'PERMISSIVE';
  /** Why nothing is enforced, or what else limits it (PERMISSIVE lets plaintext callers through unchecked). */
  note?: string;
  /** Rows: every `kuma.io/service` a Dataplane of the mesh calls as. */
  callers: string[];
  /** Columns: every service with an inbound. */
  destinations: string[];
  /** Cells in all: callers × destinations. */
  total: number;
  /** The index of this answer's first cell (`?offset=`). */
  offset: number;
  /** This page's cells (`?size=`, at most 1,000), callers major. */
  cells: PermissionCell[];
  /** The URL of the next page of cells; null on the last. */
  next: string | null;
  /** By destination Dataplane name; filled by the API from the proxies' generated configs. */
  enforcement: Record<string, ProxyEnforcement>;
  /** Problems building the rules (Kuma's MatchedPolicies warnings). */
  warnings: string[];
}
