// Kuma universal resources, as stored and as served by the API. Types only: shared by main and renderer.

export type ResourceType = 'Mesh' | 'Dataplane';
export const RESOURCE_TYPES: readonly ResourceType[] = ['Mesh', 'Dataplane'];

export type Tags = Record<string, string>;

/** Tags every Kuma user knows. */
export const SERVICE_TAG = 'kuma.io/service';
export const PROTOCOL_TAG = 'kuma.io/protocol';
export type Protocol = 'tcp' | 'http' | 'http2' | 'grpc';
export const PROTOCOLS: readonly Protocol[] = ['tcp', 'http', 'http2', 'grpc'];

/** A Mesh carries no policy yet; its spec is kept open for later fields. */
export type MeshSpec = Record<string, never>;

export interface Inbound {
  /** Envoy listens here. */
  port: number;
  /** The application's port; defaults to `port`. */
  servicePort?: number;
  /** Address Envoy binds for this inbound; defaults to `networking.address`. */
  address?: string;
  serviceAddress?: string;
  tags: Tags;
}

export interface Outbound {
  /** Envoy listens on `address`:`port` (default 127.0.0.1) and forwards to the tagged service. */
  port: number;
  address?: string;
  tags: Tags;
}

export interface DataplaneSpec {
  networking: {
    address: string;
    advertisedAddress?: string;
    inbound?: Inbound[];
    outbound?: Outbound[];
    admin?: { port: number };
  };
}

export interface SpecByType {
  Mesh: MeshSpec;
  Dataplane: DataplaneSpec;
}

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
