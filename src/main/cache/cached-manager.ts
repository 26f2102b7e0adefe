import { isMeshScoped, type Resource, type ResourceKey, type ResourceType } from '../../shared/resources.js';
import type { ListOptions, ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { Metrics } from '../metrics/metrics.js';
import { deepFreeze } from '../../shared/deep-freeze.js';
import { SingleFlightCache } from './single-flight-cache.js';

export interface CachedManagerOptions {
  delegate: ReadOnlyResourceManager;
  /** `store.cache.expirationTime` in ms, read on every lookup; 0 turns caching off (single flight stays). */
  ttl: () => number;
  metrics: Metrics;
  /** Monotonic clock in ms; tests pass their own. */
  now?: () => number;
}

type Operation = 'get' | 'list';

/** What a cache key stands for. `mesh` is '' for a Mesh, and for a list across all meshes. */
interface Read {
  operation: Operation;
  type: ResourceType;
  mesh: string;
  name?: string;
}

interface CachedRead extends Read {
  resources: Resource | readonly Resource[];
}

/** One cache entry as the UI shows it. */
export interface CachedManagerEntry extends Read {
  key: string;
  ageMs: number;
  timeLeftMs: number;
}

function sameStamps(a: Resource, b: Resource): boolean {
  return (
    a.type === b.type &&
    a.meta.version === b.meta.version &&
    a.meta.creationTime === b.meta.creationTime &&
    a.meta.modificationTime === b.meta.modificationTime
  );
}

// Kuma's key forms, so that a Kuma user reading the UI or a log recognises them.
function getKey(type: ResourceType, name: string, mesh: string): string {
  return `GET:${type}:${name}:${mesh}`;
}

function listKey(type: ResourceType, mesh: string): string {
  return `LIST:${type}:${mesh}`;
}

/**
 * The read side for xDS (Kuma's cachedManager): eventually consistent reads through a TTL cache
 * with single flight, counted in `store_cache{operation,resource_type,result}`.
 *
 * Results are shared between callers and deep-frozen: callers must not mutate them (a write throws
 * a TypeError) and copy what they want to change, e.g. `[...list].sort()`. Freezing costs one walk
 * per load; cloning would cost one per hit, and hits are most lookups.
 */
export class CachedManager implements ReadOnlyResourceManager {
  readonly #delegate: ReadOnlyResourceManager;
  readonly #metrics: Metrics;
  readonly #cache: SingleFlightCache<CachedRead>;
  /** The last result of each list key, kept past expiry: its unchanged resources are handed out again. */
  readonly #lastLists = new Map<string, readonly Resource[]>();

  constructor(options: CachedManagerOptions) {
    this.#delegate = options.delegate;
    this.#metrics = options.metrics;
    this.#cache = new SingleFlightCache({ ttl: options.ttl, ...(options.now && { now: options.now }) });
  }

  async get<T extends ResourceType>(type: T, key: { mesh: string; name: string }): Promise<Resource<T>> {
    const read: Read = { operation: 'get', type, mesh: key.mesh, name: key.name };
    const resource = await this.#read(getKey(type, key.name, key.mesh), read, () => this.#delegate.get(type, key));
    return resource as Resource<T>;
  }

  async list<T extends ResourceType>(type: T, options: ListOptions = {}): Promise<Resource<T>[]> {
    const mesh = isMeshScoped(type) ? (options.mesh ?? '') : '';
    const read: Read = { operation: 'list', type, mesh };
    const key = listKey(type, mesh);
    const resources = await this.#read(key, read, async () => this.#reuseUnchanged(key, await this.#delegate.list(type, options)));
    return resources as Resource<T>[];
  }

  /**
   * Forgets every read a write to `key` can change: its GET, the LIST of its type in its mesh,
   * and the LIST of its type across all meshes. Loads in progress for those keys are forgotten too.
   */
  invalidate(key: ResourceKey): void {
    this.#cache.invalidate(getKey(key.type, key.name, key.mesh));
    this.#cache.invalidate(listKey(key.type, key.mesh));
    this.#cache.invalidate(listKey(key.type, ''));
  }

  entries(): CachedManagerEntry[] {
    return this.#cache.entries().map(({ key, ageMs, timeLeftMs, value: { resources: _, ...read } }) => ({
      key,
      ...read,
      ageMs,
      timeLeftMs,
    }));
  }

  close(): void {
    this.#cache.close();
    this.#lastLists.clear();
  }

  /**
   * Structural sharing between consecutive loads of a list: a resource whose identity and write
   * stamps (version, creation and modification time) did not change since the last load is handed
   * out as the very object handed out before, and an entirely unchanged list as the same array.
   * The store bumps the version on every update and stamps every write with a later time than
   * the one before, so a re-created resource has a new creation time and equal stamps mean equal
   * content. Consumers can then recognise unchanged inputs by
   * identity (the MeshContext cache does, once per refresh, for every Dataplane of a mesh),
   * and the freeze walk is only paid for what changed.
   */
  #reuseUnchanged(key: string, loaded: Resource[]): readonly Resource[] {
    const previous = this.#lastLists.get(key);
    const previousByName = new Map(previous?.map((resource) => [`${resource.meta.mesh}/${resource.meta.name}`, resource]));
    let allReused = previous?.length === loaded.length;
    const resources = loaded.map((resource, index) => {
      const before = previousByName.get(`${resource.meta.mesh}/${resource.meta.name}`);
      if (before && sameStamps(before, resource)) {
        if (previous![index] !== before) allReused = false;
        return before;
      }
      allReused = false;
      return resource;
    });
    const result = allReused ? previous! : resources;
    this.#lastLists.set(key, result);
    return result;
  }

  async #read(key: string, read: Read, load: () => Promise<Resource | readonly Resource[]>): Promise<CachedRead['resources']> {
    const { result, value } = this.#cache.lookup(key, async () => ({ ...read, resources: deepFreeze(await load()) }));
    // Counted before the outcome is known, as Kuma does, so failed loads show as misses too.
    this.#metrics.storeCache.inc({ operation: read.operation, resource_type: read.type, result });
    return (await value).resources;
  }
}
