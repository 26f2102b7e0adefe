import { createSubscriber } from 'svelte/reactivity';
import { client, type ConnectionStatus } from '../api/index.js';

/**
 * Whether the core is reachable and where proxies reach it, for the status bar; and since when it
 * is not, so that the whole page can say its data is as of then (the clock stops there too).
 */
class Connection {
  #status = $state<ConnectionStatus>('connecting');
  #offlineSince = $state<number>();
  #ads = $state<{ host: string; port: number }>();
  #api = $state<string>();

  readonly #subscribe = createSubscriber(() => {
    const stop = client.onStatus((status) => {
      this.#setStatus(status);
      if (status === 'live') void this.#load();
    });
    this.#setStatus(client.status);
    void this.#load();
    return stop;
  });

  get status(): ConnectionStatus {
    this.#subscribe();
    return this.#status;
  }

  /** Epoch ms when the core was lost, while it stays lost; undefined while it is reachable (or first being reached). */
  get offlineSince(): number | undefined {
    this.#subscribe();
    return this.#offlineSince;
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

  #setStatus(status: ConnectionStatus): void {
    // The first moment counts: retries while offline must not move it.
    if (status === 'offline') this.#offlineSince ??= Date.now();
    else if (status === 'live') this.#offlineSince = undefined;
    this.#status = status;
  }

  async #load(): Promise<void> {
    try {
      const chain = await client.xdsChain();
      this.#ads = chain.ads;
      this.#api = client.transport === 'http' ? location.host : 'IPC';
      if (client.transport === 'ipc') this.#setStatus('live');
    } catch {
      this.#setStatus('offline');
    }
  }
}

export const connection = new Connection();
