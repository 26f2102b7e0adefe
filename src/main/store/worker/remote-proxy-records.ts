import type { ProxyStatus } from '../../../shared/api-types.js';
import type { ProxyEventBody } from '../../../shared/proxy-events.js';
import type { StoredProxy } from '../proxy-records.js';
import type { StorageClient } from './storage-client.js';

/**
 * Proxies' records (store/proxy-records.ts) kept by the storage worker: every event and status is
 * handed over and forgotten; the worker queues and writes them as ProxyRecords does.
 */
export class RemoteProxyRecords {
  readonly #storage: StorageClient;

  constructor(storage: StorageClient) {
    this.#storage = storage;
  }

  /** Every proxy stored by earlier runs; read once, at start. */
  load(): Promise<StoredProxy[]> {
    return this.#storage.call('records.load');
  }

  event(proxyId: string, event: ProxyEventBody): void {
    this.#storage.notify('records.event', proxyId, event);
  }

  status(status: ProxyStatus): void {
    this.#storage.notify('records.status', status);
  }

  departed(proxyId: string, at: number | null): void {
    this.#storage.notify('records.departed', proxyId, at);
  }

  forget(proxyId: string): void {
    this.#storage.notify('records.forget', proxyId);
  }

  /** Asks the worker to write what it has queued (it does at its close anyway). */
  flush(): void {
    this.#storage.notify('records.flush');
  }
}
