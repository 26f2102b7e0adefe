import { RESOURCE_TYPES, type ResourceKey, type ResourceType } from '../../../../shared/resources.js';
import { client, type KumaObject } from '../api/index.js';
import { byMeshThenName } from '../compare.js';
import { errorMessage } from '../format/error-message.js';
import { LiveQuery } from '../state/live-query.svelte.js';

interface ResourceLists {
  meshes: KumaObject[];
  dataplanes: KumaObject[];
  policies: KumaObject[];
}

/**
 * Every Mesh, Dataplane and policy, kept live: any `resource.changed` event (or the event stream
 * coming back after an outage) refetches the lists shortly after. The API stays the source of truth;
 * a failed refetch leaves the last lists shown beside the error.
 */
export class ResourcesState {
  readonly #lists = new LiveQuery(fetchSortedLists, (event) => event.topic === 'resource.changed', {
    keepLastOnError: true,
    // The whole message: it names the request that failed (`GET /meshes answered 503: …`).
    describeError: errorMessage,
  });

  /** Sorted by name. */
  get meshes(): KumaObject[] {
    return this.#lists.value?.meshes ?? [];
  }

  /** Sorted by mesh, then name. */
  get dataplanes(): KumaObject[] {
    return this.#lists.value?.dataplanes ?? [];
  }

  /** Sorted by type (Kuma's plugin order), mesh, then name. */
  get policies(): KumaObject[] {
    return this.#lists.value?.policies ?? [];
  }

  /** Whether the lists came (a failure before the first answer leaves them unloaded, with the error). */
  get loaded(): boolean {
    return this.#lists.value !== undefined;
  }

  get error(): string | undefined {
    return this.#lists.error;
  }

  /** Hears every change as it is announced (before the lists are refetched); returns the unsubscribe function. */
  onChange(listener: (key: ResourceKey, change: 'created' | 'updated' | 'deleted', version: number) => void): () => void {
    return client.subscribe((event) => {
      if (event.topic === 'resource.changed') listener(event.key, event.change, event.version);
    });
  }
}

async function fetchSortedLists(): Promise<ResourceLists> {
  const [meshes, dataplanes, policies] = await Promise.all([client.meshes(), client.dataplanes(), client.policies()]);
  const typeRank = (object: KumaObject) => RESOURCE_TYPES.indexOf(object.type as ResourceType);
  return {
    meshes: meshes.items.toSorted((a, b) => a.name.localeCompare(b.name)),
    dataplanes: dataplanes.items.toSorted(byMeshThenName),
    policies: policies.toSorted((a, b) => typeRank(a) - typeRank(b) || byMeshThenName(a, b)),
  };
}

/** The API answers only types it stores. */
export function keyOf(resource: KumaObject): ResourceKey {
  const type = resource.type as ResourceType;
  return { type, mesh: type === 'Mesh' ? '' : (resource.mesh ?? ''), name: resource.name };
}

export function sameKey(a: ResourceKey, b: ResourceKey): boolean {
  return a.type === b.type && a.mesh === b.mesh && a.name === b.name;
}
