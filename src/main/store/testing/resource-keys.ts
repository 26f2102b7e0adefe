import { RESOURCE_TYPES, type Resource, type ResourceInput, type ResourceKey } from '../../../shared/resources.js';
import type { ResourceStore } from '../resource-store.js';

// What store and manager tests compare a store's contents by.

/** The key a written input is stored under. */
export function keyOf(input: ResourceInput): ResourceKey {
  return { type: input.type, mesh: input.mesh, name: input.name };
}

/** Every resource the store holds, of every type: to show that a refused write left it as it was. */
export function allResources(store: ResourceStore): Resource[] {
  return RESOURCE_TYPES.flatMap((type) => store.list(type));
}
