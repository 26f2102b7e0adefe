import type { HistoryWriteStatus } from '../../../shared/storage-types.js';
import type { NewSnapshotRecord, SnapshotRecord, SnapshotSummary } from '../snapshot-history.js';
import type { StorageClient } from './storage-client.js';

/**
 * The snapshot history of the storage worker (store/snapshot-history.ts), seen from the main
 * thread: a published snapshot is handed over and forgotten, never waited for; reads are answered
 * after every snapshot handed over before them.
 */
export class RemoteSnapshotHistory {
  readonly #storage: StorageClient;

  constructor(storage: StorageClient) {
    this.#storage = storage;
  }

  recordSoon(snapshot: NewSnapshotRecord): void {
    this.#storage.notify('history.recordSoon', snapshot);
  }

  /** Asks the worker to write what it has queued (it does at its close anyway). */
  flush(): void {
    this.#storage.notify('history.flush');
  }

  deleteProxy(proxyId: string): void {
    this.#storage.notify('history.deleteProxy', proxyId);
  }

  list(proxyId: string): Promise<SnapshotSummary[]> {
    return this.#storage.call('history.list', proxyId);
  }

  get(id: number): Promise<SnapshotRecord | undefined> {
    return this.#storage.call('history.get', id);
  }

  latest(proxyId: string): Promise<SnapshotRecord | undefined> {
    return this.#storage.call('history.latest', proxyId);
  }

  storedBytes(proxyId?: string): Promise<number> {
    return this.#storage.call('history.storedBytes', proxyId);
  }

  writeStatus(): Promise<HistoryWriteStatus> {
    return this.#storage.call('history.writeStatus');
  }
}
