// Kuma universal resources, as stored and as served by the API. Types only: shared by main and renderer.
import { POLICY_TYPES, type PolicyType } from './policy-types.js';
import {
  MESH_SERVICE_TYPES,
  type HostnameGeneratorSpec,
  type MeshExternalServiceSpec,
  type MeshMultiZoneServiceSpec,
  type MeshServiceModelType,
  type MeshServiceSpec,
  type MeshServicesMode,
  type StatusByType,
} from './meshservice-types.js';

/** Meshes, Dataplanes, Kuma's targetRef policies and its service model (MeshService…), all stored alike. */
export type ResourceType = 'Mesh' | 'Dataplane' | PolicyType | MeshServiceModelType;
export const RESOURCE_TYPES: readonly ResourceType[] = ['Mesh', 'Dataplane', ...POLICY_TYPES, ...MESH_SERVICE_TYPES];

/** Every type but Mesh and HostnameGenerator belongs to a mesh. */
export function isMeshScoped(type: ResourceType): boolean {
  return type !== 'Mesh' && type !== 'HostnameGenerator';
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
  meshServices?: { mode?: MeshServicesMode };
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
  MeshService: MeshServiceSpec;
  MeshExternalService: MeshExternalServiceSpec;
  MeshMultiZoneService: MeshMultiZoneServiceSpec;
  HostnameGenerator: HostnameGeneratorSpec;
} & { [P in PolicyType]: PolicySpecJson };

/** The types with a `status` the control plane writes (and a PUT never does). */
export type StatusType = keyof StatusByType;

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
  /** Only the service model's types have one; written by the control plane, never by a PUT. */
  status?: T extends StatusType ? StatusByType[T] : never;
}

export type MeshResource = Resource<'Mesh'>;
export type DataplaneResource = Resource<'Dataplane'>;

/** Identifies one resource. `mesh` is '' for a global type (Mesh, HostnameGenerator). */
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
  /**
   * A status to store with a new resource (an import, a test's preload); an update keeps the stored
   * one, and the API never passes one (Kuma's PUT ignores `status`).
   */
  status?: Resource<T>['status'];
  /** Present when the writer asks for optimistic concurrency against this version. */
  version?: number;
}

/** One violation of a validation rule, named by field path, as Kuma reports them. */
export interface Violation {
  field: string;
  message: string;
}
