import { POLICY_TYPES } from '../../shared/policy-types.js';
import type { DataplaneResource, Resource } from '../../shared/resources.js';
import type { PolicyResource } from '../policies/core/policy.js';
import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { Metrics } from '../metrics/metrics.js';
import { ZONE_NAME } from '../resources/computed-labels.js';
import { buildMeshContext, hashMeshContextInputs } from '../xds/context/build-mesh-context.js';
import { follows } from '../xds/context/carried-memo.js';
import type { MeshContext } from '../xds/context/mesh-context.js';
import { SingleFlightCache } from './single-flight-cache.js';

export interface MeshContextCacheOptions {
  /** The cached manager: a context is built from the same eventually consistent reads as everything else on the xDS side. */
  cachedManager: ReadOnlyResourceManager;
  /** `store.cache.expirationTime` in ms, read on every lookup. */
  ttl: () => number;
  metrics: Metrics;
  /** Monotonic clock in ms; tests pass their own. */
  now?: () => number;
}

/**
 * MeshContexts per mesh (Kuma's mesh cache): a short-lived single-flight entry with the cache TTL,
 * counted in `mesh_cache{result}`, over a long-lived "last context" per mesh. When an entry expires
 * and the reload finds inputs with the same hash, the last context object itself is returned, not
 * a rebuilt copy, so a consumer can tell "nothing changed" by identity or hash at no cost.
 */
export class MeshContextCache {
  readonly #cachedManager: ReadOnlyResourceManager;
  readonly #metrics: Metrics;
  readonly #contexts: SingleFlightCache<MeshContext>;
  /** Kuma's long hash cache; one context per mesh ever read, dropped when reading the mesh fails. */
  readonly #last = new Map<string, MeshContext>();
  /** The Dataplane list each mesh's last context was checked against, by identity. */
  readonly #lastDataplanes = new Map<string, readonly DataplaneResource[]>();
  /** The policy lists (one per type, in POLICY_TYPES order) and destination lists each mesh's last context was checked against, by identity. */
  readonly #lastPolicyLists = new Map<string, readonly Resource[][]>();
  /** Meshes whose load is waiting for its turn and has not read anything yet. */
  readonly #notReadYet = new Set<string>();
  /** When the last build of each mesh ended and how long it took, on performance.now()'s clock. */
  readonly #lastBuild = new Map<string, { endedAt: number; tookMs: number }>();
  readonly #changeListeners = new Set<(mesh: string) => void>();

  constructor(options: MeshContextCacheOptions) {
    this.#cachedManager = options.cachedManager;
    this.#metrics = options.metrics;
    this.#contexts = new SingleFlightCache({ ttl: options.ttl, ...(options.now && { now: options.now }) });
  }

  /** Rejects when the mesh cannot be read (e.g. ResourceNotFoundError for a mesh that does not exist). */
  get(mesh: string): Promise<MeshContext> {
    const { result, value } = this.#contexts.lookup(mesh, () => this.#load(mesh));
    this.#metrics.meshCache.inc({ result });
    return value;
  }

  /**
   * Forgets the mesh's cached context, and a load in progress, so the next `get` reads again.
   * The reads behind it are the cached manager's: whoever invalidates for a write drops those too.
   *
   * A load that has not read yet is kept: it will see the write. That is what lets a storm of
   * registrations (strategy `invalidate`) share a few rebuilds instead of one each, since every
   * rebuild reads and hashes every Dataplane of the mesh.
   */
  invalidate(mesh: string): void {
    if (this.#notReadYet.has(mesh)) return;
    this.#contexts.invalidate(mesh);
  }

  /**
   * Calls `listener(mesh)` after a load replaced a mesh's context with one of other content (not
   * for the first context of a mesh: whoever asked for it gets it). Returns the unsubscribe.
   */
  onChange(listener: (mesh: string) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  close(): void {
    this.#changeListeners.clear();
    this.#contexts.close();
    this.#last.clear();
    this.#lastDataplanes.clear();
    this.#lastPolicyLists.clear();
    this.#lastBuild.clear();
  }

  async #load(mesh: string): Promise<MeshContext> {
    // Reads wait for the end of this event-loop turn, so that every registration that arrives in
    // it, and invalidates meanwhile, is covered by this one load; and right after a build, for as
    // long as that build took, so that a storm of registrations spends at most half of the event
    // loop rebuilding, however many there are (a build reads and hashes every Dataplane).
    this.#notReadYet.add(mesh);
    const last = this.#lastBuild.get(mesh);
    const pause = last ? last.endedAt + last.tookMs - performance.now() : 0;
    await new Promise((resolve) => (pause > 0 ? setTimeout(resolve, pause) : setImmediate(resolve)));
    this.#notReadYet.delete(mesh);
    const startedAt = performance.now();
    try {
      return await this.#read(mesh);
    } finally {
      const endedAt = performance.now();
      this.#lastBuild.set(mesh, { endedAt, tookMs: endedAt - startedAt });
    }
  }

  async #read(mesh: string): Promise<MeshContext> {
    try {
      const [meshResource, dataplanes, meshServices, meshExternalServices, meshMultiZoneServices, ...policyLists] = await Promise.all([
        this.#cachedManager.get('Mesh', { mesh: '', name: mesh }),
        this.#cachedManager.list('Dataplane', { mesh }),
        this.#cachedManager.list('MeshService', { mesh }),
        this.#cachedManager.list('MeshExternalService', { mesh }),
        this.#cachedManager.list('MeshMultiZoneService', { mesh }),
        ...POLICY_TYPES.map((type) => this.#cachedManager.list(type, { mesh })),
      ]);
      const destinations = { meshServices, meshExternalServices, meshMultiZoneServices };
      // Compared by identity with the policy lists: the cached manager hands out the same lists while nothing changed.
      const inputLists: readonly Resource[][] = [...policyLists, meshServices, meshExternalServices, meshMultiZoneServices];
      const last = this.#last.get(mesh);
      // The cached manager hands out the same objects while nothing changed: no need to hash then.
      const lastPolicyLists = this.#lastPolicyLists.get(mesh);
      const samePolicies = lastPolicyLists !== undefined && inputLists.every((list, index) => list === lastPolicyLists[index]);
      if (last?.mesh === meshResource && this.#lastDataplanes.get(mesh) === dataplanes && samePolicies) return last;
      this.#lastDataplanes.set(mesh, dataplanes);
      this.#lastPolicyLists.set(mesh, inputLists);
      // Each list is the store's, validated on write and on read (broken rows are left out): PolicySpecs.
      const policies = policyLists.flat() as unknown as PolicyResource[];
      const hash = hashMeshContextInputs(meshResource, dataplanes, policies, destinations);
      if (last?.hash === hash) return last;
      const built = buildMeshContext(meshResource, dataplanes, { policies, destinations, hash, zone: ZONE_NAME });
      // The proxies' next ticks find the objects of everything the change did not touch (carried-memo.ts).
      const context = last ? follows(built, last) : built;
      this.#last.set(mesh, context);
      // After this load has settled, so that a listener's reads get the new context from the cache.
      if (last) setImmediate(() => this.#changeListeners.forEach((listener) => listener(mesh)));
      return context;
    } catch (error) {
      this.#last.delete(mesh);
      this.#lastDataplanes.delete(mesh);
      this.#lastPolicyLists.delete(mesh);
      throw error;
    }
  }
}
