import { client } from '../api/index.js';
import { LiveQuery } from './live-query.svelte.js';

/**
 * The mesh a per-mesh view shows (Analysis, Services, the permission matrix): the one its route
 * names, else `default`, else the first mesh; and the meshes to choose from, live.
 */
export class MeshChoice {
  readonly #meshes = new LiveQuery(
    () => client.meshes(),
    (event) => event.topic === 'resource.changed' && event.key.type === 'Mesh',
  );
  readonly #routed: () => string | undefined;

  constructor(routed: () => string | undefined) {
    this.#routed = routed;
  }

  get current(): string {
    const names = this.#names();
    return this.#routed() ?? (names.includes('default') || names.length === 0 ? 'default' : names[0]!);
  }

  /** Every mesh, and the routed one when it is gone (or not loaded yet), so the choice stays visible. */
  get options(): string[] {
    const names = this.#names();
    const current = this.current;
    return names.includes(current) ? names : [current, ...names];
  }

  #names(): string[] {
    return this.#meshes.value?.items.map((each) => each.name) ?? [];
  }
}
