import { createSubscriber } from 'svelte/reactivity';
import { client, type ConnectionStatus } from '../api/index.js';

/** Whether the core is reachable and where proxies reach it, for the status bar. */
class Connection {
  #status = $state<ConnectionStatus>('connecting');
  #ads = $state<{ host: string; port: number }>();
  #api = $state<string>();

  readonly #subscribe = createSubscriber(() => {
    const stop = client.onStatus((status) => {
      this.#status = status;
      if (status === 'live') void this.#load();
    });
    this.#status = client.status;
    void this.#load();
    return stop;
  });

  get status(): ConnectionStatus {
    this.#subscribe();
    return this.#status;
  }

  get ads(): { host: string; port: number } | undefined {
    this.#subscribe();
    return this.#ads;
  }

  /** The API's address as the page reaches it (`127.0.0.1:5681`), or `IPC` in the app. */
  get api(): string | undefined {
    this.#subscribe();
    return this.#api;
  }

  async #load(): Promise<void> {
    try {
      const chain = await client.xdsChain();
      this.#ads = chain.ads;
      this.#api = client.transport === 'http' ? location.host : 'IPC';
      if (client.transport === 'ipc') this.#status = 'live';
    } catch {
      this.#status = 'offline';
    }
  }
}

export const connection = new Connection();
