import { createSubscriber } from 'svelte/reactivity';
import { RESOURCE_TYPES, type ResourceKey, type ResourceType } from '../../../../shared/resources.js';
import { client, type KumaObject } from '../api/index.js';

/** Changes come in bursts (a proxy registering, a bulk apply): refetch at most this often. */
const REFRESH_DELAY_MS = 150;

/**
 * Every Mesh, Dataplane and policy, kept live: any `resource.changed` event (or the event stream
 * coming back after an outage) refetches the lists shortly after. The API stays the source of truth.
 */
export class ResourcesState {
  #meshes = $state.raw<KumaObject[]>([]);
  #dataplanes = $state.raw<KumaObject[]>([]);
  #policies = $state.raw<KumaObject[]>([]);
  #loaded = $state(false);
  #error = $state<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;
  readonly #listeners = new Set<(key: ResourceKey, change: 'created' | 'updated' | 'deleted', version: number) => void>();

  readonly #subscribe = createSubscriber(() => {
    const stopEvents = client.subscribe((event) => {
      if (event.topic !== 'resource.changed') return;
      for (const listener of this.#listeners) listener(event.key, event.change, event.version);
      this.#scheduleLoad();
    });
    const stopStatus = client.onStatus((status) => {
      if (status === 'live') this.#scheduleLoad();
    });
    void this.#load();
    return () => {
      stopEvents();
      stopStatus();
      clearTimeout(this.#timer);
      this.#timer = undefined;
    };
  });

  /** Sorted by name. */
  get meshes(): KumaObject[] {
    this.#subscribe();
    return this.#meshes;
  }

  /** Sorted by mesh, then name. */
  get dataplanes(): KumaObject[] {
    this.#subscribe();
    return this.#dataplanes;
  }

  /** Sorted by type (Kuma's plugin order), mesh, then name. */
  get policies(): KumaObject[] {
    this.#subscribe();
    return this.#policies;
  }

  get loaded(): boolean {
    this.#subscribe();
    return this.#loaded;
  }

  get error(): string | undefined {
    this.#subscribe();
    return this.#error;
  }

  /** Hears every change as it is announced (before the lists are refetched); returns the unsubscribe function. */
  onChange(listener: (key: ResourceKey, change: 'created' | 'updated' | 'deleted', version: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #scheduleLoad(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#load();
    }, REFRESH_DELAY_MS);
  }

  async #load(): Promise<void> {
    // Only the newest answer may write: answers can arrive out of order.
    const generation = ++this.#generation;
    try {
      const [meshes, dataplanes, policies] = await Promise.all([client.meshes(), client.dataplanes(), client.policies()]);
      if (generation !== this.#generation) return;
      const byMeshAndName = (a: KumaObject, b: KumaObject) => (a.mesh ?? '').localeCompare(b.mesh ?? '') || a.name.localeCompare(b.name);
      const typeRank = (object: KumaObject) => RESOURCE_TYPES.indexOf(object.type as ResourceType);
      this.#meshes = meshes.items.toSorted((a, b) => a.name.localeCompare(b.name));
      this.#dataplanes = dataplanes.items.toSorted(byMeshAndName);
      this.#policies = policies.toSorted((a, b) => typeRank(a) - typeRank(b) || byMeshAndName(a, b));
      this.#loaded = true;
      this.#error = undefined;
    } catch (error) {
      if (generation !== this.#generation) return;
      this.#error = error instanceof Error ? error.message : String(error);
    }
  }
}

/** The API answers only types it stores. */
export function keyOf(resource: KumaObject): ResourceKey {
  const type = resource.type as ResourceType;
  return { type, mesh: type === 'Mesh' ? '' : (resource.mesh ?? ''), name: resource.name };
}

export function sameKey(a: ResourceKey, b: ResourceKey): boolean {
  return a.type === b.type && a.mesh === b.mesh && a.name === b.name;
}
