// Kuma universal resources, as stored and as served by the API. Types only: shared by main and renderer.
import { POLICY_TYPES, type PolicyType } from './policy-types.js';

/** Meshes, Dataplanes and Kuma's targetRef policies, all stored alike. */
export type ResourceType = 'Mesh' | 'Dataplane' | PolicyType;
export const RESOURCE_TYPES: readonly ResourceType[] = ['Mesh', 'Dataplane', ...POLICY_TYPES];

/** Every type but Mesh belongs to a mesh. */
export function isMeshScoped(type: ResourceType): boolean {
  return type !== 'Mesh';
}

export type Tags = Record<string, string>;

/** Tags every Kuma user knows. */
export const SERVICE_TAG = 'kuma.io/service';
export const PROTOCOL_TAG = 'kuma.io/protocol';
/** Kuma's Dataplane label naming its workload (an identity, and `%KUMA_WORKLOAD%` in access logs). */
export const WORKLOAD_LABEL = 'kuma.io/workload';
export type Protocol = 'tcp' | 'http' | 'http2' | 'grpc';
export const PROTOCOLS: readonly Protocol[] = ['tcp', 'http', 'http2', 'grpc'];

// The specs below are Kuma v2.14.3's Mesh and Dataplane protos (api/mesh/v1alpha1/*.proto) in their
// JSON form: every field Kuma has, by its JSON name. meshdesk acts on some of them (NOT_APPLIED in
// not-applied.ts lists the others); all are validated as Kuma validates them and stored as given.

/** `1s`, `500ms`, `1m30s`: a google.protobuf.Duration as Go's time.ParseDuration reads it. */
export type DurationText = string;
/** A google.protobuf.Struct: any JSON object, read by the backend it configures. */
export type JsonStruct = Record<string, unknown>;

export interface CertificateAuthorityBackend {
  name?: string;
  type?: string;
  dpCert?: { rotation?: { expiration?: string }; requestTimeout?: DurationText };
  conf?: JsonStruct;
  mode?: 'STRICT' | 'PERMISSIVE';
  rootChain?: { requestTimeout?: DurationText };
}

/** Logging, tracing and metrics backends share this shape; `conf` depends on `type`. */
export interface NamedBackend {
  name?: string;
  type?: string;
  conf?: JsonStruct;
}

export interface MeshSpec {
  mtls?: { enabledBackend?: string; backends?: CertificateAuthorityBackend[]; skipValidation?: boolean };
  tracing?: { defaultBackend?: string; backends?: (NamedBackend & { sampling?: number })[] };
  logging?: { defaultBackend?: string; backends?: (NamedBackend & { format?: string })[] };
  metrics?: { enabledBackend?: string; backends?: NamedBackend[] };
  networking?: { outbound?: { passthrough?: boolean } };
  routing?: { localityAwareLoadBalancing?: boolean; zoneEgress?: boolean; defaultForbidMeshExternalServiceAccess?: boolean };
  constraints?: { dataplaneProxy?: { requirements?: { tags?: Tags }[]; restrictions?: { tags?: Tags }[] } };
  skipCreatingInitialPolicies?: string[];
  meshServices?: { mode?: 'Disabled' | 'Everywhere' | 'ReachableBackends' | 'Exclusive' };
}

export interface ServiceProbe {
  interval?: DurationText;
  timeout?: DurationText;
  unhealthyThreshold?: number;
  healthyThreshold?: number;
  tcp?: Record<string, never>;
}

export interface Inbound {
  /** Envoy listens here. */
  port: number;
  /** The application's port; defaults to `port`. */
  servicePort?: number;
  /** Address Envoy binds for this inbound; defaults to `networking.address`. */
  address?: string;
  serviceAddress?: string;
  /** Optional since Kuma 2.14: an inbound without tags is identified by its `name` or port. */
  tags?: Tags;
  health?: { ready?: boolean };
  serviceProbe?: ServiceProbe;
  state?: 'Ready' | 'NotReady' | 'Ignored';
  name?: string;
  protocol?: string;
}

/** What an outbound reaches instead of a `kuma.io/service` tag. */
export interface BackendRef {
  kind?: string;
  name?: string;
  port?: number;
  labels?: Record<string, string>;
}

export interface Outbound {
  /** Envoy listens on `address`:`port` (default 127.0.0.1) and forwards to the tagged service. */
  port: number;
  address?: string;
  /** Either tags naming `kuma.io/service` or a `backendRef`. */
  tags?: Tags;
  backendRef?: BackendRef;
}

export interface ReachableBackendRef {
  kind?: string;
  name?: string;
  namespace?: string;
  port?: number;
  labels?: Record<string, string>;
}

export interface TransparentProxying {
  redirectPortInbound?: number;
  redirectPortOutbound?: number;
  directAccessServices?: string[];
  reachableServices?: string[];
  ipFamilyMode?: 'UnSpecified' | 'DualStack' | 'IPv4' | 'IPv6';
  reachableBackends?: { refs?: ReachableBackendRef[] };
}

export interface Gateway {
  tags?: Tags;
  type?: 'DELEGATED' | 'BUILTIN';
}

/** A ZoneIngress or ZoneEgress listener (Kuma 2.14). */
export interface Listener {
  type?: 'Unspecified' | 'ZoneIngress' | 'ZoneEgress';
  address?: string;
  port?: number;
  name?: string;
  state?: 'Ready' | 'NotReady';
}

export interface PrometheusAggregate {
  name?: string;
  port?: number;
  path?: string;
  enabled?: boolean;
  address?: string;
}

export interface DataplaneSpec {
  networking: {
    address: string;
    advertisedAddress?: string;
    inbound?: Inbound[];
    outbound?: Outbound[];
    gateway?: Gateway;
    transparentProxying?: TransparentProxying;
    admin?: { port?: number };
    listeners?: Listener[];
  };
  metrics?: NamedBackend;
  probes?: { port?: number; endpoints?: { inboundPort?: number; inboundPath?: string; path?: string }[] };
}

/**
 * A targetRef policy's spec as stored (`targetRef`, `to`, `from`, `rules`), checked by the policy
 * validator; main reads it as `PolicySpec` (src/main/policies/core/policy.ts).
 */
export type PolicySpecJson = JsonStruct;

export type SpecByType = {
  Mesh: MeshSpec;
  Dataplane: DataplaneSpec;
} & { [P in PolicyType]: PolicySpecJson };

export interface ResourceMeta {
  /** '' for global resources (Mesh). */
  mesh: string;
  name: string;
  /** Increases by one on every write; an update carrying another version is a conflict. */
  version: number;
  creationTime: string;
  modificationTime: string;
  labels: Record<string, string>;
}

export interface Resource<T extends ResourceType = ResourceType> {
  type: T;
  meta: ResourceMeta;
  spec: SpecByType[T];
}

export type MeshResource = Resource<'Mesh'>;
export type DataplaneResource = Resource<'Dataplane'>;

/** Identifies one resource. `mesh` is '' for a Mesh. */
export interface ResourceKey {
  type: ResourceType;
  mesh: string;
  name: string;
}

/** A validated resource as written by a user, before the store gives it a version and times. */
export interface ResourceInput<T extends ResourceType = ResourceType> {
  type: T;
  mesh: string;
  name: string;
  labels: Record<string, string>;
  spec: SpecByType[T];
  /** Present when the writer asks for optimistic concurrency against this version. */
  version?: number;
}

/** One violation of a validation rule, named by field path, as Kuma reports them. */
export interface Violation {
  field: string;
  message: string;
}
