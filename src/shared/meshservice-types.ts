// Kuma v2.14.3's destination resources (its "new service model"): MeshService, MeshExternalService,
// MeshMultiZoneService, and the HostnameGenerator that names them. Types only: shared by main and renderer.
// Specs and statuses in their JSON form (pkg/core/resources/apis/*/api/v1alpha1).

export const MESH_SERVICE_TYPES = ['MeshService', 'MeshExternalService', 'MeshMultiZoneService', 'HostnameGenerator'] as const;
export type MeshServiceModelType = (typeof MESH_SERVICE_TYPES)[number];

export function isMeshServiceModelType(type: string): type is MeshServiceModelType {
  return (MESH_SERVICE_TYPES as readonly string[]).includes(type);
}

/** The three kinds a proxy can reach: each has ports, VIPs and hostnames. */
export type DestinationType = Exclude<MeshServiceModelType, 'HostnameGenerator'>;

export type MeshServicesMode = 'Disabled' | 'Everywhere' | 'ReachableBackends' | 'Exclusive';

export interface MeshServicePort {
  name?: string;
  port: number;
  /** An inbound's port number, or an inbound's name. */
  targetPort?: number | string;
  appProtocol?: string;
}

export interface MeshServiceSpec {
  state?: 'Available' | 'Unavailable';
  selector?: {
    dataplaneTags?: Record<string, string>;
    dataplaneRef?: { name?: string };
    dataplaneLabels?: { matchLabels?: Record<string, string> };
  };
  ports?: MeshServicePort[];
  identities?: { type: 'ServiceTag' | 'SpiffeID'; value: string }[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

export interface HostnameAddress {
  hostname: string;
  origin: 'HostnameGenerator';
  hostnameGeneratorRef: { coreName: string };
}

export interface HostnameGeneratorStatus {
  hostnameGeneratorRef: { coreName: string };
  conditions: Condition[];
}

/** What the VIP allocator and the hostname generator write, common to the three destination kinds. */
export interface DestinationStatus {
  addresses?: HostnameAddress[];
  hostnameGenerators?: HostnameGeneratorStatus[];
}

export interface MeshServiceStatus extends DestinationStatus {
  vips?: { ip: string }[];
  tls?: { status?: 'Ready' | 'NotReady' };
  dataplaneProxies?: { connected?: number; healthy?: number; total?: number };
}

export interface MeshExternalServiceSpec {
  match?: { type?: 'HostnameGenerator'; port?: number; protocol?: 'tcp' | 'grpc' | 'http' | 'http2' };
  endpoints?: { address?: string; port?: number; priority?: number }[];
  tls?: Record<string, unknown>;
  extension?: { type?: string; config?: unknown };
}

export interface MeshExternalServiceStatus extends DestinationStatus {
  vip?: { ip?: string };
}

export interface MeshMultiZoneServiceSpec {
  selector?: { meshService?: { matchLabels?: Record<string, string> } };
  ports?: { name?: string; port: number; appProtocol?: string }[];
}

export interface MeshMultiZoneServiceStatus extends DestinationStatus {
  meshServices?: { name: string; namespace: string; zone: string; mesh: string }[];
  vips?: { ip: string }[];
  conditions?: Condition[];
}

export interface HostnameGeneratorSpec {
  selector?: {
    meshService?: { matchLabels?: Record<string, string> };
    meshExternalService?: { matchLabels?: Record<string, string> };
    meshMultiZoneService?: { matchLabels?: Record<string, string> };
  };
  template?: string;
  extension?: { type?: string; config?: unknown };
}

export interface StatusByType {
  MeshService: MeshServiceStatus;
  MeshExternalService: MeshExternalServiceStatus;
  MeshMultiZoneService: MeshMultiZoneServiceStatus;
  HostnameGenerator: Record<string, never>;
}

/** Labels the model reads and writes. */
export const DISPLAY_NAME_LABEL = 'kuma.io/display-name';
export const MANAGED_BY_LABEL = 'kuma.io/managed-by';
export const MESH_SERVICE_GENERATOR = 'meshservice-generator';
export const DELETION_GRACE_PERIOD_LABEL = 'kuma.io/deletion-grace-period-started-at';
export const ENV_LABEL = 'kuma.io/env';
export const MESH_LABEL = 'kuma.io/mesh';
/** A Kubernetes resource's namespace; empty in universal, but part of names, KRIs and SNIs. */
export const NAMESPACE_LABEL = 'k8s.kuma.io/namespace';
