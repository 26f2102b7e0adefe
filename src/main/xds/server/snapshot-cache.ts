import type { Snapshot } from './snapshot.js';

export type SnapshotListener = (snapshot: Snapshot) => void;

/**
 * The one seam between the ADS server and wherever configuration comes from (go-control-plane's
 * ConfigWatcher). A stream watches its node once it knows the node id, and decides itself, by the
 * xDS rules, what to send; the source never sees gRPC and the server never sees how snapshots are made.
 */
export interface ConfigWatcher {
  /**
   * Calls `listener` with the node's current snapshot right away if there is one, then with every
   * snapshot set for it, synchronously. Returns the function that stops watching.
   */
  watch(nodeId: string, listener: SnapshotListener): () => void;
}

/** Snapshots by node id, with watchers notified on every set. */
export class SnapshotCache implements ConfigWatcher {
  readonly #snapshots = new Map<string, Snapshot>();
  readonly #listeners = new Map<string, Set<SnapshotListener>>();

  /** Stores the node's snapshot and hands it to every stream watching that node. */
  setSnapshot(nodeId: string, snapshot: Snapshot): void {
    assertTypeUrlsMatch(nodeId, snapshot);
    this.#snapshots.set(nodeId, snapshot);
    for (const listener of this.#listeners.get(nodeId) ?? []) listener(snapshot);
  }

  getSnapshot(nodeId: string): Snapshot | undefined {
    return this.#snapshots.get(nodeId);
  }

  /**
   * Forgets the node's snapshot. Watching streams are not told: their proxy keeps its last
   * configuration until a new snapshot is set (as in go-control-plane's ClearSnapshot).
   */
  clearSnapshot(nodeId: string): void {
    this.#snapshots.delete(nodeId);
  }

  nodeIds(): string[] {
    return [...this.#snapshots.keys()];
  }

  watch(nodeId: string, listener: SnapshotListener): () => void {
    const listeners = this.#listeners.get(nodeId) ?? new Set<SnapshotListener>();
    this.#listeners.set(nodeId, listeners);
    // A fresh function per watch, so one listener watching twice is two watches.
    const watcher: SnapshotListener = (snapshot) => listener(snapshot);
    listeners.add(watcher);
    const current = this.#snapshots.get(nodeId);
    if (current) watcher(current);
    return () => {
      listeners.delete(watcher);
      if (listeners.size === 0 && this.#listeners.get(nodeId) === listeners) this.#listeners.delete(nodeId);
    };
  }
}

/** Every Any of a type must carry that type's URL: a client rejects a response that mixes them. */
function assertTypeUrlsMatch(nodeId: string, snapshot: Snapshot): void {
  for (const [typeUrl, { resources }] of snapshot) {
    for (const [name, { any }] of resources) {
      if (any.type_url !== typeUrl) {
        throw new Error(`snapshot for node "${nodeId}": resource "${name}" listed under ${typeUrl} is a ${any.type_url}`);
      }
    }
  }
}
