import type { ReadOnlyResourceManager } from '../manager/interfaces.js';
import type { Metrics } from '../metrics/metrics.js';
import { buildMeshContext, hashMeshContextInputs } from '../xds/context/build-mesh-context.js';
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
   */
  invalidate(mesh: string): void {
    this.#contexts.invalidate(mesh);
  }

  close(): void {
    this.#contexts.close();
    this.#last.clear();
  }

  async #load(mesh: string): Promise<MeshContext> {
    try {
      const [meshResource, dataplanes] = await Promise.all([
        this.#cachedManager.get('Mesh', { mesh: '', name: mesh }),
        this.#cachedManager.list('Dataplane', { mesh }),
      ]);
      const last = this.#last.get(mesh);
      if (last?.hash === hashMeshContextInputs(meshResource, dataplanes)) return last;
      const context = buildMeshContext(meshResource, dataplanes);
      this.#last.set(mesh, context);
      return context;
    } catch (error) {
      this.#last.delete(mesh);
      throw error;
    }
  }
}
