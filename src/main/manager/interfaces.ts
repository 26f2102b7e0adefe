import type { Resource, ResourceInput, ResourceKey, ResourceType } from '../../shared/resources.js';
import type { BrokenRow } from '../../shared/storage-types.js';

export interface ListOptions {
  /** Only resources of this mesh; ignored for Mesh. */
  mesh?: string;
}

/** What the xDS side reads. The cached manager implements it over the real one (Kuma's ReadOnlyResourceManager). */
export interface ReadOnlyResourceManager {
  get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>>;
  list<T extends ResourceType>(type: T, options?: ListOptions): Promise<Resource<T>[]>;
}

export interface UpsertResult<T extends ResourceType = ResourceType> {
  resource: Resource<T>;
  created: boolean;
}

export interface UpsertOptions<T extends ResourceType = ResourceType> {
  /**
   * Judges the stored resource (undefined when there is none) before each attempt to write; throws
   * to refuse the write. The write then carries the version it judged, so a change in between is
   * judged again instead of written over.
   */
  precondition?: (current: Resource<T> | undefined) => void;
}

/** One status the control plane writes (meshservice/controller.ts). */
export interface StatusWrite {
  key: ResourceKey;
  status: NonNullable<Resource['status']>;
}

export interface ResourceManager extends ReadOnlyResourceManager {
  /** Validated input only: parse and validate at the boundary first. */
  create<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>>;
  /** Fails with a conflict when `input.version` is set and differs from the stored version. */
  update<T extends ResourceType>(input: ResourceInput<T>): Promise<Resource<T>>;
  /** Create or update; without `input.version`, retries on a conflict with a concurrent writer. */
  upsert<T extends ResourceType>(input: ResourceInput<T>, options?: UpsertOptions<T>): Promise<UpsertResult<T>>;
  /** All or nothing, in one transaction: inputs without `version` are created, with one updated at exactly that version. */
  writeAll(inputs: ResourceInput[]): Promise<UpsertResult[]>;
  delete(key: ResourceKey, options?: { version?: number }): Promise<void>;
  /** The control plane's statuses of service-model resources, in one commit: no version, no event (a resource deleted meanwhile is skipped). */
  writeStatuses(writes: readonly StatusWrite[]): Promise<void>;
  /** Stored rows left out of every read because they do not parse or validate, as reads have met them. */
  brokenRows(): BrokenRow[];
}
