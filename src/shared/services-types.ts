// The services of a mesh (GET /meshes/{mesh}/_services): every service, where it runs, who calls
// it, and what the policies do on each caller → service edge. Types only: shared by main and renderer.
import type { ProxyConnectionState } from './api-types.js';
import type { PermissionDecision } from './permission-types.js';
import type { PolicyOrigin, PolicyType } from './policy-types.js';
import type { Protocol } from './resources.js';

/** `tag`: a `kuma.io/service` tag on Dataplane inbounds (Kuma's legacy service); `MeshService`: the resource. */
export type ServiceKind = 'tag' | 'MeshService';

export interface ServicePort {
  port: number;
  name?: string;
  /** MeshService: the inbound port number or name it forwards to. */
  targetPort?: number | string;
  appProtocol?: string;
}

/** One Dataplane inbound that serves the service. */
export interface ServiceEndpoint {
  dataplane: string;
  /** `mesh.name`: the proxy's node id, as `#/proxies/<proxyId>` opens it. */
  proxyId: string;
  address: string;
  port: number;
  /** Whether the inbound is ready (its `state` and `health`). */
  healthy: boolean;
  /** Whether its proxy is connected now. */
  online: boolean;
  /** Its proxy's connection state; absent when it never connected. */
  state?: ProxyConnectionState;
}

/** One destination of a route rule, with its share of the rule's traffic. */
export interface SplitTarget {
  kind: string;
  name: string;
  port?: number;
  weight: number;
  /** `weight` over the rule's weights, in percent (two decimals). */
  percent: number;
}

export interface RouteSplitRule {
  /** The rule's matches in short (`GET /api`, `path prefix /v2`); absent: every request (or connection). */
  matches?: string;
  targets: SplitTarget[];
  /** The route item this rule came from. */
  origin?: PolicyOrigin;
}

/** The route that applies to one caller's outbound to the service. */
export interface RouteSplit {
  type: 'MeshHTTPRoute' | 'MeshTCPRoute';
  rules: RouteSplitRule[];
}

/** What the service's proxies decide for this caller, with mTLS on (MeshTrafficPermission). */
export interface EdgePermission {
  /** `mixed`: it differs between the service's inbounds or the caller's services. */
  decision: PermissionDecision | 'mixed';
  reason: string;
  origin?: PolicyOrigin;
}

/** A policy whose `to` rules reach the edge (for the caller's proxy, on its outbound to the service). */
export interface EdgePolicy {
  type: PolicyType;
  name: string;
}

/** One caller Dataplane's outbound to the service. */
export interface ServiceEdge {
  dataplane: string;
  proxyId: string;
  /** The services the caller calls as (its identity). */
  callerServices: string[];
  /** Where its proxy listens for the service: `address:port`. */
  outbound: string;
  /** How the outbound names the service: by its `kuma.io/service` tag, or a MeshService backendRef. */
  via: 'tag' | 'backendRef';
  online: boolean;
  route?: RouteSplit;
  /** Absent with mTLS off (nothing is checked), and when no inbound serves the service (no proxy decides). */
  permission?: EdgePermission;
  policies: EdgePolicy[];
}

export interface ServiceSummary {
  kind: ServiceKind;
  name: string;
  protocol: Protocol;
  ports: ServicePort[];
  vips: string[];
  hostnames: string[];
  endpoints: ServiceEndpoint[];
  /** Endpoints whose proxy is online. */
  online: number;
  callers: ServiceEdge[];
}

export interface ServicesView {
  mesh: string;
  /** True when mTLS is on: edges carry the permission decision. */
  mtls: boolean;
  /** By name, tag services and MeshServices of one name next to each other (tag first). */
  services: ServiceSummary[];
}
